# Entry points with the reference's signatures: solve(args, task, idx,
# to_print) -> (ys, info). This stand-in asks for args.n_generate_sample
# chains the 0.x way, then asks once more with the 1.x client and once
# with the 1.x module-level client.
import openai
from openai import OpenAI

from tot.models import ask, usage


def solve(args, task, idx, to_print=True):
    x = task.get_input(idx)
    print("stand-in solving", x)  # the reference prints; the wrapper sends it to stderr
    ys = ask(task.prompt(x), model=args.backend, temperature=args.temperature, n=args.n_generate_sample)
    client = OpenAI()
    check = client.chat.completions.create(model=args.backend, messages=[{"role": "user", "content": task.prompt(x)}], n=1)
    ys.append(check.choices[0].message.content)
    usage["prompt_tokens"] += check.usage.prompt_tokens
    # and the 1.x module-level client, as scripts written against it call it
    again = openai.chat.completions.create(model=args.backend, messages=[{"role": "user", "content": task.prompt(x)}], n=1)
    ys.append(again.choices[0].message.content)
    return ys, {"usage": dict(usage)}


naive_solve = solve
