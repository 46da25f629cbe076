"""Run the Tree of Thoughts reference implementation (princeton-nlp/
tree-of-thought-llm) unchanged as a bench program: read the item, call the
reference's own solve function on it, print its answer.

    bench run --task game24 --range 900:910 --strategy program \
      --set cmd='python3 python/examples/reference_wrapper.py' \
      --set checkout=/path/to/tree-of-thought-llm

Nothing of the reference is copied or edited. The wrapper
  * makes `import openai` (and `import backoff`) work: the real packages
    when installed, else the standard-library stand-ins in
    python/reasonbench_openai_shim (appended to the END of sys.path, so an
    installed package always wins; params shim=always puts them first). The
    reference's other imports (numpy, pandas, sympy for game24) must be
    installed: they are the reference's own code, not a model client;
  * puts the checkout's src/ (the packaged layout, `tot.*`) on sys.path and
    imports tot.methods.bfs.solve and tot.tasks.get_task;
  * builds the argparse namespace run.py would (its defaults for the paper's
    game24 setting: propose, value, greedy, n_evaluate_sample 3,
    n_select_sample 5, temperature 0.7; each overridable by params of the
    same name), with backend = BENCH_MODEL;
  * constructs the reference task, replaces its data with this one item
    (task.data = [input], index 0), so the reference sees exactly the
    puzzle bench sent;
  * sends the reference's printing to standard error, and prints the first
    of the returned ys (the reference's own choice) as the answer.

The reference sets openai.api_base from OPENAI_API_BASE and openai.api_key
from OPENAI_API_KEY itself; bench sets both for the program.

Where it differs from run.py: one process per item, so the reference's
value cache (kept on the task across the puzzles of a run) starts empty for
every puzzle, and run.py's logging and final accuracy are not produced:
bench scores the answer.

params: checkout (required), task (the reference's task name; default from
the item: game24 -> game24, crosswords -> crosswords, creative -> text),
shim (auto|always), and run.py's argument names.
"""

import argparse
import contextlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import reasonbench as rb  # noqa: E402

SHIM = os.path.join(HERE, "..", "reasonbench_openai_shim")

# run.py's arguments for the paper's Game of 24 ToT setting.
DEFAULTS = {
    "temperature": 0.7,
    "naive_run": False,
    "prompt_sample": None,
    "method_generate": "propose",
    "method_evaluate": "value",
    "method_select": "greedy",
    "n_generate_sample": 1,
    "n_evaluate_sample": 3,
    "n_select_sample": 5,
}

TASKS = {"game24": "game24", "crosswords": "crosswords", "creative": "text"}


def use_shim(mode):
    if mode == "always":
        sys.path.insert(0, SHIM)
    else:
        sys.path.append(SHIM)


def reference_args(item, p):
    ns = dict(DEFAULTS)
    for k, default in DEFAULTS.items():
        if k in p:
            v = p[k]
            if isinstance(default, bool):
                v = v in (True, "true", "1")
            elif isinstance(default, (int, float)):
                v = type(default)(v)
            ns[k] = v
    ns["backend"] = rb.model()
    ns["task"] = p.get("task") or TASKS.get(item["task"], item["task"])
    ns["task_start_index"], ns["task_end_index"] = 0, 1
    return argparse.Namespace(**ns)


def solve(item):
    p = rb.params()
    checkout = p.get("checkout")
    if not checkout:
        raise ValueError("params checkout: the path of a tree-of-thought-llm checkout")
    use_shim(p.get("shim", "auto"))
    for d in (os.path.join(checkout, "src"), checkout):
        if os.path.isdir(d):
            sys.path.insert(0, d)
    args = reference_args(item, p)
    with contextlib.redirect_stdout(sys.stderr):
        from tot.methods.bfs import naive_solve, solve as bfs_solve
        from tot.tasks import get_task

        task = get_task(args.task)
        task.data = [item["input"]]
        run = naive_solve if args.naive_run else bfs_solve
        ys, _info = run(args, task, 0, to_print=False)
    if not ys:
        raise RuntimeError("the reference returned no output")
    return ys[0]


if __name__ == "__main__":
    rb.run(solve)
