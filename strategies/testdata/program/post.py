"""Sends one request to the item's endpoint as told by argv and prints
the answer's content, or exits 1 on an HTTP error (a test of bench's
program strategy). argv: how (ok | badkey | nokey | notoken | badjson |
badpath | stream), then optional header name=value pairs."""
import json
import os
import sys
import urllib.error
import urllib.request

how = sys.argv[1]
item = json.loads(sys.stdin.readline())
base, key = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]
url = base + "/chat/completions"
body = {"model": os.environ["BENCH_MODEL"], "messages": [{"role": "user", "content": "Input: " + item["input"]}]}
if how == "badkey":
    key = "sk-not-the-token"
if how == "notoken":
    url = base.rsplit("/", 2)[0] + "/v1/chat/completions"
if how == "badpath":
    url = base + "/embeddings"
if how == "stream":
    body["stream"] = True
data = b'{"model": "x", "messages": [' if how == "badjson" else json.dumps(body).encode()
headers = {"Content-Type": "application/json"}
if how != "nokey":
    headers["Authorization"] = "Bearer " + key
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    headers[k] = v
try:
    with urllib.request.urlopen(urllib.request.Request(url, data, headers)) as r:
        if how == "stream":
            text = "".join(
                c["delta"].get("content") or ""
                for line in r.read().decode().splitlines()
                if line.startswith("data: ") and line != "data: [DONE]"
                for c in json.loads(line[6:])["choices"]
            )
        else:
            text = json.load(r)["choices"][0]["message"]["content"]
except urllib.error.HTTPError as e:
    print("HTTP", e.code, e.read().decode(), file=sys.stderr)
    sys.exit(1)
print(json.dumps({"output": text}))
