#!/usr/bin/python3
"""Reference intervals for results/interval_runs_test.go, computed with scipy.

interval_runs.json holds two simulated runs on Game of 24 puzzles 900-999,
made and exported with

    make build
    bin/bench run --db /tmp/x.db --task game24 --strategy io --range 900:1000 --set k=10   # run 1
    bin/bench run --db /tmp/x.db --task game24 --strategy cot --range 900:1000             # run 2
    for i in 1 2; do bin/bench export --db /tmp/x.db $i > /tmp/run-$i.jsonl; done
    /usr/bin/python3 results/testdata/interval_runs.py make /tmp/run-1.jsonl /tmp/run-2.jsonl \\
        > results/testdata/interval_runs.json

keeping each item's index, key, verdict and score, then adds under
"scipy" what `bin/bench report` and `bin/bench compare 1 2` must give:

- run 1 (io k=10: an item's score is the mean of 10 samples): the
  Student-t interval over the item scores,
  scipy.stats.t.interval(0.95, n-1, loc=mean, scale=scipy.stats.sem(scores));
- run 2 (cot: 0/1 items): the Wilson score interval,
  scipy.stats.binomtest(successes, n).proportion_ci(0.95, method="wilson");
- run 1 against run 2 paired by item: scipy.stats.ttest_rel(run1, run2),
  its p-value and confidence_interval(0.95).

scipy is needed only to write the file; the Go test reads the numbers.
"""
import json
import sys

import scipy
from scipy import stats


def make(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        head = lines[0]["run"]
        items = [{"idx": it["idx"], "key": it["key"], "correct": it["correct"], "score": it["score"]} for it in lines[1:]]
        runs.append({"id": head["id"], "task": head["task"], "strategy": head["strategy"], "params": head["params"],
                     "model": head["model"], "simulated": head["simulated"], "seed": head["seed"],
                     "range": head["range"], "items": items})
    return {"runs": runs}


def reference(data):
    r1, r2 = data["runs"]
    a = [it["score"] for it in r1["items"]]
    n = len(a)
    mean = sum(a) / n
    lo, hi = stats.t.interval(0.95, n - 1, loc=mean, scale=stats.sem(a))
    b = [it["score"] for it in r2["items"]]
    k = sum(1 for x in b if x == 1)
    ci = stats.binomtest(k, len(b)).proportion_ci(confidence_level=0.95, method="wilson")
    by_key = {it["key"]: it["score"] for it in r2["items"]}
    pa = [it["score"] for it in r1["items"] if it["key"] in by_key]
    pb = [by_key[it["key"]] for it in r1["items"] if it["key"] in by_key]
    tt = stats.ttest_rel(pa, pb)
    pci = tt.confidence_interval(0.95)
    return {
        "scipy_version": scipy.__version__,
        "run1_t": {"mean": mean, "low": float(lo), "high": float(hi), "n": n},
        "run2_wilson": {"successes": k, "n": len(b), "low": float(ci.low), "high": float(ci.high)},
        "paired_t": {"n": len(pa), "difference": sum(x - y for x, y in zip(pa, pb)) / len(pa),
                     "p": float(tt.pvalue), "low": float(pci.low), "high": float(pci.high)},
    }


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "make":
        data = make(sys.argv[2:])
        data["scipy"] = reference(data)
    else:
        with open(sys.argv[1] if len(sys.argv) > 1 else "results/testdata/interval_runs.json") as f:
            data = json.load(f)
        data["scipy"] = reference(data)
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")
