"""A tool-calling agent for τ-bench's domains, written against the
reference's Env API as bench serves it to a program (Python's standard
library only): reset, then ask the model with the policy as the system turn
and the tools as native tools; act on the first tool call of each reply (or
say the reply to the user) until the episode is done or max_steps pass.

    bin/bench run --task tau-airline --range 0:5 --strategy program \
      --set cmd='/usr/bin/python3 python/examples/tau_agent.py' --set trials=2

OPENAI_BASE_URL/OPENAI_API_KEY are the item's model endpoint,
REASONBENCH_ENV_URL its episode (POST .../env/reset, .../env/step)."""
import json
import os
import sys
import urllib.request


def post(url, body):
    req = urllib.request.Request(url, json.dumps(body).encode(), {
        "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


item = json.loads(sys.stdin.readline())
env = os.environ["REASONBENCH_ENV_URL"]
max_steps = int(item["params"].get("max_steps", 30))

reset = post(env + "/env/reset", {"task_index": item["index"]})
messages = [{"role": "system", "content": reset["info"]["wiki"]}, {"role": "user", "content": reset["observation"]}]
reward = 0.0
for _ in range(max_steps):
    reply = post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", {
        "model": os.environ.get("BENCH_MODEL", "bench"), "messages": messages,
        "tools": reset["info"]["tools"], "temperature": 0})
    msg = reply["choices"][0]["message"]
    calls = msg.get("tool_calls") or []
    if calls:
        call = calls[0]  # as the reference: only the first call is acted on and kept
        msg["tool_calls"] = calls[:1]
        action = {"name": call["function"]["name"], "kwargs": json.loads(call["function"]["arguments"])}
    else:
        action = {"name": "respond", "kwargs": {"content": msg.get("content") or ""}}
    step = post(env + "/env/step", action)
    reward = step["reward"]
    if calls:
        messages += [msg, {"role": "tool", "tool_call_id": call["id"], "name": action["name"], "content": step["observation"]}]
    else:
        messages += [msg, {"role": "user", "content": step["observation"]}]
    if step["done"]:
        break
print(json.dumps({"output": reward}))
