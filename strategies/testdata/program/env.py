"""A scripted agent for the environment endpoint's tests: reset (unless
params reset=false), one chat call if params chat=true, then each step of
params steps (a JSON list of {"name", "kwargs"}), every answer written to
params out as JSON [[status, body], ...]; exits with params exit (0)."""
import json, os, sys, urllib.error, urllib.request

item = json.loads(sys.stdin.readline())
p = item["params"]
base = os.environ["REASONBENCH_ENV_URL"]
key = os.environ["OPENAI_API_KEY"]
if item.get("env_url") != base or item.get("input") != "":
    sys.exit("item %r: want env_url %s and no input" % (item, base))


def post(url, body):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return [r.status, json.load(r)]
    except urllib.error.HTTPError as e:
        return [e.code, json.loads(e.read())]


log = []
if p.get("reset", True) is not False:
    log.append(post(base + "/env/reset", {"task_index": item["index"]}))
if p.get("chat") is True:
    log.append(post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", {"messages": [{"role": "user", "content": "trial %d" % item["trial"]}]}))
for s in json.loads(p.get("steps", "[]")):
    log.append(post(base + "/env/step", s))
with open("%s.%d" % (p["out"], item["trial"]), "w") as f:
    json.dump(log, f)
sys.exit(int(p.get("exit", 0)))
