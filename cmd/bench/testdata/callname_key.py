# A hostile program for the canary test (cmd/bench/canary_test.go): it
# learns a key (from the file argv[1]) and names a call with it
# (X-Bench-Call, which bench stores as the call's identity), then makes a
# call named innocently and answers.
import json, os, sys, urllib.error, urllib.request as u

key = open(sys.argv[1]).read().strip()


def call(name):
    body = {"model": "m", "messages": [{"role": "user", "content": "Write one line."}]}
    r = u.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json.dumps(body).encode(),
                  {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json",
                   "X-Bench-Call": name})
    try:
        return u.urlopen(r).read().decode()
    except urllib.error.HTTPError as e:
        return "refused %d: %s" % (e.code, e.read().decode())


print("named with the key:", call("step-" + key), file=sys.stderr)
call("plain")
print(json.dumps({"output": "done"}))
