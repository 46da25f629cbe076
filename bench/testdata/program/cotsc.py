"""CoT-SC as a program (the test of bench's program strategy): the same
request as the native cotsc strategy (the game24 cot template, n=k, the
temperature) and the same vote (game24's "line" key: the last line that
starts with "Answer:", lower-cased, spaces collapsed; ties to the answer
seen first), written with Python's standard library only.

params: template (path of the cot template), k, temperature.
"""
import json
import os
import sys
import urllib.request


def vote_key(output):
    for line in reversed(output.split("\n")):
        line = line.strip()
        if line[:7].lower() == "answer:":
            return " ".join(line.lower().split())
    return None


def main():
    item = json.loads(sys.stdin.readline())
    params = item["params"]
    with open(params["template"]) as f:
        prompt = f.read().replace("{{.Input}}", item["input"])
    body = {
        "model": os.environ["BENCH_MODEL"],
        "messages": [{"role": "user", "content": prompt}],
        "n": int(params["k"]),
        "temperature": float(params["temperature"]),
    }
    req = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        json.dumps(body).encode(),
        {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        outputs = [c["message"]["content"] for c in json.load(r)["choices"]]
    counts, first = {}, {}
    for i, out in enumerate(outputs):
        key = vote_key(out)
        if key is None:
            continue
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, i)
    answer = ""
    if counts:
        best = max(counts.values())
        winner = min(first[k] for k, c in counts.items() if c == best)
        answer = outputs[winner]
    print("chains:", len(outputs), file=sys.stderr)
    print(json.dumps({"output": answer}))


main()
