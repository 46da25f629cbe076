# Plays tau-bench's user simulator (the reference's own user.py, from the
# checkout argv[1]) on a scripted model, for reference_test.go. stdin:
# {"strategy", "script": [reply, ...], "actions": [[op, arg], ...]}, ""
# in the script standing for a reply without content (None). The user is
# built with load_user (its constructor's calls are the "setup" action,
# index 0); then each action is "reset" (reset(instruction=arg)) or "step"
# (step(arg)), and, as tau-bench's environment does with what the user
# says, a None reply raises. stdout: {"requests": [[{"role", "content"}]],
# "kwargs": [other completion arguments], "returns": [...], "error_at":
# index of the action that raised or -1, "error": its text}.
import importlib.util
import json
import os
import sys
import types

src = sys.argv[1]
spec = json.load(sys.stdin)
script = list(spec["script"])
requests, extra = [], []


class Message:
    def __init__(self, content):
        self.content = content

    def model_dump(self):
        return {"role": "assistant", "content": self.content, "tool_calls": None, "function_call": None}

    def __str__(self):
        # verify() interpolates the message object itself; its repr is
        # litellm's and version-dependent: the port uses the content.
        return str(self.content)


def completion(model, custom_llm_provider, messages, **kw):
    requests.append([{"role": m["role"], "content": m["content"] if m["content"] is not None else ""} for m in messages])
    extra.extend(sorted(kw))
    if not script:
        raise RuntimeError("script exhausted")
    reply = script.pop(0)
    res = types.SimpleNamespace(choices=[types.SimpleNamespace(message=Message(reply if reply != "" else None))])
    res._hidden_params = {"response_cost": 0.0}
    return res


litellm = types.ModuleType("litellm")
litellm.completion = completion
sys.modules["litellm"] = litellm
mod_spec = importlib.util.spec_from_file_location("ref_user", os.path.join(src, "tau_bench/envs/user.py"))
user = importlib.util.module_from_spec(mod_spec)
mod_spec.loader.exec_module(user)

out = {"returns": [], "error_at": -1, "error": ""}
try:
    sim = user.load_user(spec["strategy"], model="m", provider="p")
    out["returns"].append("")
    for op, arg in spec["actions"]:
        r = sim.reset(instruction=arg) if op == "reset" else sim.step(arg)
        if r is None:
            raise TypeError("the user said None")
        out["returns"].append(r)
except Exception as e:
    out["error_at"] = len(out["returns"])
    out["error"] = f"{type(e).__name__}: {e}"
out["requests"] = requests
out["kwargs"] = extra
print(json.dumps(out))
