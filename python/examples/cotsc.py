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
  numeric  gsm8k's: the last number of the answer text, exact (Fraction);
  answer   anything else: the last "Answer:" line's text, lower-cased.
Where it differs from the task's Go key (numeric: Finish[...] actions,
digits of other scripts, exponents are not read) a chain may abstain here
that bench would count; params detail=true prints each chain's key so a
test can compare them.

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
DEFAULT_KEY = {"game24": "line", "gsm8k": "numeric"}


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


def labelled_answer(output):
    """What follows the last "Answer:" label (Markdown decoration allowed),
    or the next non-blank line when the label line is empty."""
    lines = output.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        s = lines[i].lstrip(" \t*#>-_")
        if s[:6].lower() == "answer":
            rest = s[6:].lstrip(" \t*_")
            if rest.startswith(":"):
                rest = rest[1:].strip(" \t*_")
                if not rest:
                    nxt = [l for l in lines[i + 1:] if l.strip()]
                    rest = nxt[0].strip() if nxt else ""
                if rest:
                    return rest
    return None


def number_text(output):
    """Where the answer number is: after the last "####", else the Answer
    line, else an "answer is" sentence, else the whole output."""
    i = output.rfind("####")
    if i >= 0:
        line = output[i + 4:].split("\n", 1)[0]
        if numbers(line):
            return line
    a = labelled_answer(output)
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
    line = labelled_answer(output)
    return " ".join(line.lower().split()).rstrip(".") if line else None


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
