# The 0.x style: module-level configuration from the environment, a
# backoff-decorated ChatCompletion.create, dict access to the response.
import os

import backoff
import openai

openai.api_key = os.getenv("OPENAI_API_KEY", "")
if os.getenv("OPENAI_API_BASE", ""):
    openai.api_base = os.getenv("OPENAI_API_BASE")

usage = {"prompt_tokens": 0, "completion_tokens": 0}


@backoff.on_exception(backoff.expo, openai.error.OpenAIError)
def create(**kwargs):
    return openai.ChatCompletion.create(**kwargs)


def ask(prompt, model, temperature, n, max_tokens=None, stop=None):
    res = create(model=model, messages=[{"role": "user", "content": prompt}],
                 temperature=temperature, max_tokens=max_tokens, n=n, stop=stop)
    usage["prompt_tokens"] += res["usage"]["prompt_tokens"]
    usage["completion_tokens"] += res["usage"]["completion_tokens"]
    return [c["message"]["content"] for c in res["choices"]]
