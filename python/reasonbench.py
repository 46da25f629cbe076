"""reasonbench: write a reasoning strategy in Python against bench's item protocol.

Standard library only (Python >= 3.9). A program run by `bench run --strategy
program --set cmd='python3 my_method.py'` gets, per item:

  * one JSON object on standard input: {"index", "id", "input", "context",
    "task", "params"} (never the gold answer) -- read_item();
  * an OpenAI-compatible endpoint in OPENAI_BASE_URL (or OPENAI_API_BASE),
    with a per-run token in OPENAI_API_KEY and the model name in BENCH_MODEL --
    chat(), complete(), or any OpenAI client;
  * and prints its answer as the last line of standard output -- answer().

Every call goes through the run's sampler stack (cache, cost, retries,
replay), so a program should not retry or cache on its own. A call may be
named with call="step/name" (sent as the X-Bench-Call header); unnamed calls
get an identity from their content and how many identical requests came
before them in this item.

The same functions work against `bench serve-sim` or any OpenAI-compatible
server: set OPENAI_BASE_URL yourself and pipe an item in.
"""

import json
import os
import sys
import urllib.error
import urllib.request

__all__ = [
    "APIError", "read_item", "params", "flag", "base_url", "model", "post", "chat_response",
    "chat", "completion_response", "complete", "answer", "run", "template", "render",
]

# How long one HTTP request may take (seconds); bench's own per-item timeout
# is the real limit, this only stops a request that would never return.
TIMEOUT = float(os.environ.get("BENCH_HTTP_TIMEOUT", "600"))

# How much of an error body an APIError shows.
_MAX_BODY = 2000


class APIError(Exception):
    """A request that did not succeed: status is the HTTP status (None when no
    response came back), body the start of what the server said."""

    def __init__(self, status, body, url):
        self.status, self.body, self.url = status, body, url
        where = "no response" if status is None else "HTTP %d" % status
        super().__init__("%s from %s: %s" % (where, url, body[:_MAX_BODY]))


_item = None


def read_item(stream=None):
    """The item bench sent on standard input, parsed once (later calls return
    the same dict). Raises ValueError naming what is wrong with the input."""
    global _item
    if _item is None:
        text = (stream or sys.stdin).read()
        try:
            item = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError("standard input is not one JSON object: %s" % e) from None
        if not isinstance(item, dict) or not isinstance(item.get("input"), str):
            raise ValueError('standard input: want a JSON object with an "input" string')
        item.setdefault("params", {})
        item.setdefault("context", "")
        _item = item
    return _item


def params():
    """The run's --set values for this program (the item's "params")."""
    return (_item or {}).get("params") or {}


def flag(name, default=False):
    """A yes/no param: --set values arrive as text, so "false" and "0" are no."""
    v = params().get(name, default)
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true", "yes", "on")
    return bool(v)


def base_url():
    """The endpoint's base URL (ending in /v1), from OPENAI_BASE_URL or
    OPENAI_API_BASE."""
    url = os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")
    if not url:
        raise RuntimeError("OPENAI_BASE_URL is not set: run under `bench run --strategy program`, "
                           "or point it at an OpenAI-compatible server such as `bench serve-sim`")
    return url.rstrip("/")


def model():
    """The model name to send: BENCH_MODEL, else params' "model", else "sim"."""
    return os.environ.get("BENCH_MODEL") or params().get("model") or "sim"


def post(path, body, call=None):
    """POST a JSON body to base_url()+path and return the decoded JSON
    response; an APIError with the status and body on any failure."""
    url = base_url() + path
    headers = {"Content-Type": "application/json"}
    key = os.environ.get("OPENAI_API_KEY")
    if key:
        headers["Authorization"] = "Bearer " + key
    if call:
        headers["X-Bench-Call"] = call
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as e:
        raise APIError(e.code, e.read().decode("utf-8", "replace"), url) from None
    except (urllib.error.URLError, OSError) as e:
        raise APIError(None, str(getattr(e, "reason", e)), url) from None
    try:
        out = json.loads(raw)
    except ValueError:
        raise APIError(200, "response is not JSON: " + raw[:200].decode("utf-8", "replace"), url) from None
    if not isinstance(out, dict) or not isinstance(out.get("choices"), list):
        raise APIError(200, "response has no choices: " + raw[:200].decode("utf-8", "replace"), url)
    return out


def _sampling(n, temperature, max_tokens, stop, extra):
    body = {"model": model(), "n": n}
    # None leaves a parameter unsent, so the server's default applies (as
    # bench's own strategies do with temperature=default).
    for k, v in (("temperature", temperature), ("max_tokens", max_tokens), ("stop", stop)):
        if v is not None:
            body[k] = v
    body.update(extra)
    return body


def _messages(messages):
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    return list(messages)


def chat_response(messages, n=1, temperature=None, max_tokens=None, stop=None, call=None, **extra):
    """One /chat/completions request; the whole decoded response (choices,
    usage). messages is a list of {"role", "content"} or one user text; extra
    keys (tools, seed, ...) go into the request as they are."""
    body = _sampling(n, temperature, max_tokens, stop, extra)
    body["messages"] = _messages(messages)
    return post("/chat/completions", body, call)


def chat(messages, n=1, temperature=None, max_tokens=None, stop=None, call=None, **extra):
    """The texts of the choices of one chat request, in choice order ("" for
    a choice without content)."""
    resp = chat_response(messages, n, temperature, max_tokens, stop, call, **extra)
    return [_text((c.get("message") or {}).get("content") if isinstance(c, dict) else None) for c in resp["choices"]]


def completion_response(prompt, n=1, temperature=None, max_tokens=None, stop=None, call=None, **extra):
    """One /completions request; the whole decoded response."""
    body = _sampling(n, temperature, max_tokens, stop, extra)
    body["prompt"] = prompt
    return post("/completions", body, call)


def complete(prompt, n=1, temperature=None, max_tokens=None, stop=None, call=None, **extra):
    """The texts of the choices of one completions request."""
    resp = completion_response(prompt, n, temperature, max_tokens, stop, call, **extra)
    return [_text(c.get("text") if isinstance(c, dict) else None) for c in resp["choices"]]


def _text(v):
    """A choice's text: a string as it is, content parts joined, else "" (a
    server's odd answer is the strategy's empty choice, not a crash)."""
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "".join(p.get("text", "") for p in v if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def answer(output, **detail):
    """Print the answer as the last line of standard output: {"output": ...}
    plus any detail keys (bench scores "output" only)."""
    line = {"output": output}
    line.update(detail)
    sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def run(solve):
    """read_item(), solve(item) -> output, answer(output). Any exception is
    reported on standard error in one line (the tail bench records) and the
    exit status is 1."""
    try:
        answer(solve(read_item()))
    except Exception as e:  # the program's failure, reported, not hidden
        sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
        sys.exit(1)


# Templates. bench renders prompts/<task>/<name>.txt with Go's text/template;
# render() reproduces the part of it the bundled question templates use
# byte for byte (python_test.go compares it with Go on every bundled
# template it accepts) and refuses anything else rather than render it
# differently.

_HERE = os.path.dirname(os.path.abspath(__file__))


def template(task, name):
    """The text of a bundled template: params' "template_dir" (a folder laid
    out like prompts/), else BENCH_PROMPTS, else this checkout's prompts/.
    Runs with --prompts FOLDER must pass the same folder here."""
    root = params().get("template_dir") or os.environ.get("BENCH_PROMPTS") or os.path.join(_HERE, "..", "prompts")
    # A file task (file:PATH) uses the qa templates, as tasks.TemplateName
    # does for a task without its own.
    for folder in (task, "qa"):
        path = os.path.join(root, folder, name + ".txt")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                return f.read()
    raise RuntimeError("template %s/%s: not under %s or its qa/ (set params template_dir)" % (task, name, root))


def render(text, item=None, **fields):
    """Render a bench template the way Go's text/template does, for the
    subset bench's question templates use: {{.Name}}, {{if .Name}} ...
    {{else}} ... {{end}} and the trim markers {{- and -}}. Names are Input
    and Context (from the item) and any keyword. Any other action is a
    ValueError rather than a different prompt."""
    item = item or {}
    values = {"Input": item.get("input", ""), "Context": item.get("context") or ""}
    values.update(fields)
    nodes, rest = _parse(_lex(text), 0)
    if rest is not None:
        raise ValueError("template: {{%s}} without an {{if}}" % rest[1])
    return "".join(_exec(nodes, values))


_SPACE = " \t\r\n"


def _lex(text):
    """Texts and actions, with the trim markers applied."""
    out, i = [], 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            out.append(("text", text[i:]))
            return out
        k = text.find("}}", j + 2)
        if k < 0:
            raise ValueError("template: unclosed {{ at byte %d" % j)
        action = text[j + 2:k]
        ltrim = len(action) >= 2 and action[0] == "-" and action[1] in _SPACE
        rtrim = len(action) >= 2 and action[-1] == "-" and action[-2] in _SPACE
        pre = text[i:j]
        out.append(("text", pre.rstrip(_SPACE) if ltrim else pre))
        out.append(("action", action[1 if ltrim else 0:len(action) - 1 if rtrim else len(action)].strip()))
        i = k + 2
        if rtrim:
            while i < len(text) and text[i] in _SPACE:
                i += 1


def _field(expr):
    if not expr.startswith(".") or not expr[1:].isidentifier():
        raise ValueError("template: action {{%s}} is more than reasonbench.render supports" % expr)
    return expr[1:]


def _parse(tokens, i):
    """Nodes up to an {{else}} or {{end}} (returned as the stop token) or the
    end of the tokens."""
    nodes = []
    while i < len(tokens):
        kind, v = tokens[i]
        i += 1
        if kind == "text":
            nodes.append(("text", v))
        elif v in ("else", "end"):
            return nodes, (i, v)
        elif v.startswith("if "):
            cond = _field(v[3:].strip())
            then, stop = _parse(tokens, i)
            other = []
            if stop is not None and stop[1] == "else":
                other, stop = _parse(tokens, stop[0])
            if stop is None or stop[1] != "end":
                raise ValueError("template: {{if %s}} without {{end}}" % cond)
            i = stop[0]
            nodes.append(("if", cond, then, other))
        else:
            nodes.append(("field", _field(v)))
    return nodes, None


def _exec(nodes, values):
    for n in nodes:
        if n[0] == "text":
            yield n[1]
        elif n[0] == "field":
            if n[1] not in values:
                raise ValueError("template: no value for .%s" % n[1])
            yield str(values[n[1]])
        else:
            if n[1] not in values:
                raise ValueError("template: no value for .%s" % n[1])
            yield from _exec(n[2] if values[n[1]] else n[3], values)
