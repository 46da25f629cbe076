"""Chain-of-thought with self-consistency (Wang et al., 2022) against bench's
program protocol: the task's own cot template, one request for k chains, a
majority vote on the extracted answers.

It sends what bench's native `cotsc` sends: the same rendered prompt as one
user message, n=k, the same temperature (0.7 unless params say otherwise),
and names the call "cotsc" as the native strategy does. The vote follows
strategies.Vote: ties go to the answer seen first, the output is the first
chain with the winning answer, no vote gives an empty output.

Vote keys (params vote_key, default the task's first as in bench):
  line     game24's: the last "Answer:" line, lower-cased, spaces collapsed;
  numeric  gsm8k's: the last number of the answer text (a "####" line, a
           Finish action, an Answer label, an "answer is" sentence, else the
           whole output), exact (Fraction);
  answer   hotpotqa's and anything else: the answer (Finish action, Answer
           label, or a short one-line output) under SQuAD's normalisation.
Where it differs from the task's Go key a chain may abstain here that bench
would count: numeric does not read exponents or digits of other scripts; a
file task scored by another rule (exact, choice, numeric) keys its answers
differently, so pass vote_key to match it. params detail=true prints each
chain's key so a test can compare them.

params: k (10), temperature (0.7; "default" leaves it unsent), max_tokens,
vote_key, template (a cot template file; default prompts/<task>/cot.txt),
detail, seed (sent as the request's seed: only to reproduce a known draw;
under bench leave it out, the endpoint seeds each call from its identity).
"""

import os
import re
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import reasonbench as rb  # noqa: E402

# The first vote key of each task bench knows here; others vote on "answer".
DEFAULT_KEY = {"game24": "line", "gsm8k": "numeric", "hotpotqa": "answer"}


def answer_line(output):
    """The last line starting with "Answer:" (any case), trimmed, or None."""
    for line in reversed(output.split("\n")):
        line = line.strip()
        if line[:7].lower() == "answer:":
            return line
    return None


# A number as bench's numeric scorer reads one: optional sign not glued to a
# word, thousands groups, a fraction of integers or a decimal part.
NUMBER = re.compile(r"(?<![\w.])[-\u2212]?\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?|(?<![\w-])[-\u2212]?\d+/\d+|[-\u2212]?\d+(?:\.\d+)?")


def numbers(text):
    out = []
    for m in NUMBER.finditer(text):
        s = m.group().replace(",", "").replace("\u2212", "-")
        start = m.start()
        # A sign right after a letter or digit is a hyphen ("3-4", "x-2").
        if s.startswith("-") and start > 0 and text[start - 1].isalnum():
            s = s[1:]
        try:
            v = Fraction(s)
        except (ValueError, ZeroDivisionError):
            continue
        out.append(v)
    return out


QUOTES = [('"', '"'), ("'", "'"), ("`", "`"), ("\u201c", "\u201d"), ("\u2018", "\u2019"),
          ("\u00ab", "\u00bb"), ("\u201e", "\u201c"), ("**", "**"), ("*", "*")]


def clean(s):
    """Trim spaces, final periods and one pair of matching quotes, until
    nothing changes."""
    while True:
        prev = s
        s = s.strip().rstrip(".").strip()
        for a, b in QUOTES:
            if len(s) >= len(a) + len(b) and s.startswith(a) and s.endswith(b):
                s = s[len(a):len(s) - len(b)]
                break
        if s == prev:
            return s


def label_rest(line):
    """What follows an "Answer:" label at the start of line, or None."""
    s = line.lstrip(" \t*_#>-")
    if s[:6].lower() != "answer":
        return None
    s = s[6:].lstrip(" \t*_")
    return s[1:] if s.startswith(":") else None


def labelled_answer(output):
    """The last "Answer:" label's text (the next non-blank line when the
    label stands alone), cleaned; None if there is none."""
    lines = output.split("\n")
    nxt = None  # index of the first non-blank line after i
    for i in range(len(lines) - 1, -1, -1):
        rest = label_rest(lines[i])
        if rest is not None:
            rest = rest.strip(" \t\r*_")
            if rest == "" and nxt is not None and label_rest(lines[nxt]) is None:
                rest = lines[nxt].strip(" \t\r*_")
            ans = clean(rest)
            if ans:
                return ans
        if lines[i].strip():
            nxt = i
    return None


FINISH = re.compile(r"(?<![A-Za-z0-9_])finish[ \t]*\[", re.IGNORECASE)


def finish_answer(output):
    """The last Finish[...] action's argument (brackets balanced; the rest of
    its line when the bracket is not closed there), cleaned; or None."""
    for m in reversed(list(FINISH.finditer(output))):
        rest, depth, arg = output[m.end():], 1, None
        for i, ch in enumerate(rest):
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    arg = rest[:i]
                    break
            elif ch == "\n" and rest[:i].strip():
                arg = rest[:i]
                break
        if arg is None:
            arg = rest
        ans = clean(arg)
        if ans:
            return ans
    return None


def extract_answer(output):
    """A Finish action's argument, else an Answer label's text."""
    return finish_answer(output) or labelled_answer(output)


def text_answer(output):
    """extract_answer, else the whole output when it is one short line."""
    ans = extract_answer(output)
    if ans:
        return ans
    s = output.strip()
    if s and len(s) <= 300 and "\n" not in s and "\r" not in s:
        return clean(s) or None
    return None


PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
ARTICLES = re.compile(r"\b(a|an|the)\b")


def squad_normalise(s):
    """SQuAD's answer normalisation: lower case, no ASCII punctuation, no
    articles, single spaces."""
    s = "".join(ch for ch in s.lower() if ch not in PUNCT)
    return " ".join(ARTICLES.sub(" ", s).split())


def number_text(output):
    """Where the answer number is: after the last "####", else the Answer
    line, else an "answer is" sentence, else the whole output."""
    i = output.rfind("####")
    if i >= 0:
        line = output[i + 4:].split("\n", 1)[0]
        if numbers(line):
            return line
    a = extract_answer(output)
    if a is not None and numbers(a):
        return a
    i = output.lower().rfind("answer is")
    if i >= 0:
        line = output[i:].split("\n", 1)[0]
        if numbers(line):
            return line
    return output


def vote_key(output, key):
    """The output's vote key, or None where it abstains."""
    if key == "line":
        line = answer_line(output)
        return " ".join(line.lower().split()) if line else None
    if key == "numeric":
        ns = numbers(number_text(output))
        return str(ns[-1]) if ns else None
    ans = text_answer(output)
    key = squad_normalise(ans) if ans else ""
    return key or None


def vote(outputs, key):
    """Majority vote: (winning key, index of its first chain, keys); ties to
    the key seen first; (None, -1, keys) when every chain abstains."""
    keys = [vote_key(o, key) for o in outputs]
    counts, first = {}, {}
    for i, k in enumerate(keys):
        if k is not None:
            counts[k] = counts.get(k, 0) + 1
            first.setdefault(k, i)
    if not counts:
        return None, -1, keys
    best = max(counts, key=lambda k: (counts[k], -first[k]))
    return best, first[best], keys


def solve(item):
    p = rb.params()
    k = int(p.get("k", 10))
    temperature = p.get("temperature", 0.7)
    temperature = None if temperature == "default" else float(temperature)
    max_tokens = int(p["max_tokens"]) if p.get("max_tokens") else None
    if p.get("template"):
        with open(p["template"], encoding="utf-8") as f:
            text = f.read()
    else:
        text = rb.template(item["task"], "cot")
    prompt = rb.render(text, item)
    extra = {"seed": int(p["seed"])} if p.get("seed") is not None else {}
    outputs = rb.chat(prompt, n=k, temperature=temperature, max_tokens=max_tokens, call="cotsc", **extra)
    key = p.get("vote_key") or DEFAULT_KEY.get(item["task"], "answer")
    best, winner, keys = vote(outputs, key)
    output = outputs[winner] if winner >= 0 else ""
    if rb.flag("detail"):
        return output, {"vote_key": key, "key": best, "winner": winner, "keys": keys, "outputs": outputs}
    return output, None


if __name__ == "__main__":
    try:
        out, detail = solve(rb.read_item())
    except Exception as e:
        sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
        sys.exit(1)
    if detail is None:
        rb.answer(out)
    else:
        rb.answer(out, detail=detail)
