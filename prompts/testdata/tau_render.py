# Renders tau-bench's prompts with the reference's own code, for
# prompts/taupack_test.go: argv[1] is a checkout of sierra-research/tau-bench,
# stdin the sample data (JSON), stdout a JSON object name -> rendered text.
# litellm and the modules the agents import for their types are stand-ins
# (nothing needs installing, no request leaves the process); types.py's
# string constants are read from the checkout.
import ast
import importlib.util
import json
import os
import random
import sys
import types

src = sys.argv[1]
data = json.load(sys.stdin)


class Stop(Exception):
    pass


requests = []
answer = ["true"]


class Message:
    def __init__(self, content):
        self.content = content

    def model_dump(self):
        return {"role": "assistant", "content": self.content}


class Response:
    def __init__(self, content):
        self.choices = [types.SimpleNamespace(message=Message(content))]
        self._hidden_params = {"response_cost": 0.0}


def completion(**kw):
    requests.append([dict(m) for m in kw["messages"]])
    if answer[0] is Stop:
        raise Stop()
    return Response(answer[0])


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


module("litellm", completion=completion, provider_list=[])
consts = {}
for node in ast.parse(open(os.path.join(src, "tau_bench/types.py")).read()).body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        consts[node.targets[0].id] = node.value.value
module("tau_bench")
module("tau_bench.agents")
module("tau_bench.envs")
module("tau_bench.types", Action=lambda name, kwargs: types.SimpleNamespace(name=name, kwargs=kwargs), SolveResult=dict, **consts)
module("tau_bench.agents.base", Agent=object)
module("tau_bench.envs.base", Env=object)


def load(name, rel):
    spec = importlib.util.spec_from_file_location(name, os.path.join(src, rel))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


out = {}
user = load("ref_user", "tau_bench/envs/user.py")
for cls, key in [(user.LLMUserSimulationEnv, "user_llm"), (user.ReactUserSimulationEnv, "user_react")]:
    out[key] = cls.build_system_prompt(None, instruction=data["instruction"])
    out[key + "/none"] = cls.build_system_prompt(None, instruction=None)
answer[0] = "true"
user.verify("m", "p", data["response"], data["messages"])
out["user_verify"] = requests[-1][0]["content"]
answer[0] = "Reflection: r\nResponse: x"
user.reflect("m", "p", data["response"], data["messages"])
out["user_reflect"] = requests[-1][0]["content"]
answer[0] = "hi"
u = user.LLMUserSimulationEnv.__new__(user.LLMUserSimulationEnv)
u.model, u.provider = "m", "p"
u.reset(instruction=data["instruction"])
out["user_opening"] = u.messages[1]["content"]

react = load("ref_react", "tau_bench/agents/chat_react_agent.py")
for reasoning, key in [(True, "react_react"), (False, "react_act")]:
    out[key] = react.ChatReActAgent(tools_info=data["tools"], wiki=data["wiki"], model="m", provider="p",
                                    use_reasoning=reasoning).prompt
out["tools_json"] = json.dumps(data["tools"])


class Env:
    def reset(self, task_index=None):
        return types.SimpleNamespace(observation="hello", info=types.SimpleNamespace(model_dump=lambda: {}))


def first_system_turn(agent):
    requests.clear()
    answer[0] = Stop
    try:
        agent.solve(env=Env(), task_index=0)
    except Stop:
        pass
    return requests[0][0]["content"]


calling = load("ref_tool_calling", "tau_bench/agents/tool_calling_agent.py")
out["react_tools/none"] = first_system_turn(
    calling.ToolCallingAgent(tools_info=data["tools"], wiki=data["wiki"], model="m", provider="p"))
few = load("ref_few_shot", "tau_bench/agents/few_shot_agent.py")
random.sample = lambda xs, k: list(xs[:k])  # the draw is the task's; here the first k in order
out["react_tools"] = first_system_turn(
    few.FewShotToolCallingAgent(tools_info=data["tools"], wiki=data["wiki"], model="m", provider="p",
                                few_shot_displays=data["displays"]))
print(json.dumps(out))
