#!/usr/bin/env python3
"""Reference values for results/reference_runs_test.go, computed from
reference_runs.json with Python's standard library alone (fractions, math,
itertools, statistics; scipy is not installed where this was written).

reference_runs.json holds three simulated runs on Game of 24 puzzles
900-919, made and exported with

    make build
    bin/bench run --db /tmp/ref.db --task game24 --strategy cotsc --set k=5 --range 900:920   # run 1
    bin/bench run --db /tmp/ref.db --task game24 --strategy cot --range 900:920               # run 2
    bin/bench run --db /tmp/ref.db --task game24 --strategy io --range 900:920                # run 3
    for i in 1 2 3; do bin/bench export --db /tmp/ref.db $i > /tmp/ref-$i.jsonl; done
    python3 results/testdata/reference_runs.py make /tmp/ref-1.jsonl /tmp/ref-2.jsonl /tmp/ref-3.jsonl \\
        > results/testdata/reference_runs.json

keeping each item's key, verdict, score and tokens and, for CoT-SC, each
sample's vote key (null: the sample abstains) and verdict. Then

    python3 results/testdata/reference_runs.py

prints what `bin/bench compare --db /tmp/ref.db 2 1 3 --format json` and
`bin/bench report --db /tmp/ref.db --by k --runs 1 --format json` must
give:

- McNemar: scipy.stats.binomtest(b, b+c, 0.5).pvalue; with p = 1/2 the
  binomial is symmetric and scipy's two-sided rule gives 2*P(X <= min(b, c)),
  capped at 1: exact rationals here.
- Holm: statsmodels multipletests(p, method="holm"): sorted p_(i) * (m - i),
  running maximum, capped at 1: exact rationals.
- Newcombe (1998) paired method 10 from the paper's formulas, with the
  correction of the correlation term (a positive ad - bc reduced by n/2 and
  floored at 0), in floating point (square roots and a normal quantile).
- The vote curve: every k'-subset of each item's samples enumerated with
  itertools.combinations, CoT-SC's rule written out afresh (the most
  frequent key wins, a tie goes to the key seen first, abstaining samples
  never vote, a subset that all abstains is wrong); best-of-k' as the
  share of subsets holding a right sample; tokens per item the prompt once
  plus k'/k of the completions. Exact rationals.
"""
import json
import os
import sys
from fractions import Fraction
from itertools import combinations
from math import comb

# Newcombe's interval (and the Wilson limits under it) as the stats
# package's reference script writes it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stats", "testdata"))
from reference import newcombe10  # noqa: E402


def make(paths):
    runs = []
    for path in paths:
        with open(path) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        head = lines[0]["run"]
        run = {k: head[k] for k in ("id", "task", "strategy", "params", "model", "simulated", "seed", "range")}
        run["items"] = []
        for it in lines[1:]:
            row = {k: it[k] for k in ("idx", "key", "correct", "score", "prompt_tokens", "completion_tokens")}
            if head["strategy"] == "cotsc":
                row["samples"] = [{"key": s["key"], "correct": s["correct"]} for s in it["samples"]]
            run["items"].append(row)
        runs.append(run)
    # One item a line: small, and a diff shows which item changed.
    out = []
    for run in runs:
        items = run.pop("items")
        head = json.dumps(run)[:-1]
        out.append(head + ', "items": [\n' + ",\n".join("  " + json.dumps(it) for it in items) + "\n]}")
    sys.stdout.write('{"runs": [\n' + ",\n".join(out) + "\n]}\n")


def item_key(it):
    return it["key"] if it["key"] else "#%d" % it["idx"]


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return Fraction(1)
    m = min(b, c)
    tail = Fraction(sum(comb(n, i) for i in range(m + 1)), 2 ** n)
    return min(Fraction(1), 2 * tail)


def holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [None] * m
    run = Fraction(0)
    for r, i in enumerate(order):
        run = max(run, min(Fraction(1), (m - r) * p[i]))
        out[i] = run
    return out


def vote_right(samples, subset):
    count, first = {}, {}
    for i in subset:
        k = samples[i]["key"]
        if k is None:
            continue
        count[k] = count.get(k, 0) + 1
        first.setdefault(k, i)
    if not count:
        return False
    top = max(count.values())
    winner = min((first[k] for k in count if count[k] == top))  # the tied key seen first
    return samples[winner]["correct"]


def reference():
    with open(__file__.rsplit("/", 1)[0] + "/reference_runs.json") as f:
        runs = json.load(f)["runs"]
    by_id = {r["id"]: r for r in runs}
    base, others = by_id[2], [by_id[1], by_id[3]]  # bench compare 2 1 3: the first is the baseline
    bscore = {item_key(it): it["score"] for it in base["items"]}
    rows = []
    for r in others:
        score = {item_key(it): it["score"] for it in r["items"]}
        keys = sorted(set(score) & set(bscore))
        tab = {"both": 0, "run": 0, "base": 0, "neither": 0}
        for k in keys:
            x, y = score[k], bscore[k]
            tab["both" if x and y else "run" if x else "base" if y else "neither"] += 1
        n = len(keys)
        acc = Fraction(sum(int(score[k]) for k in keys), n)
        bacc = Fraction(sum(int(bscore[k]) for k in keys), n)
        rows.append(dict(run=r["id"], n=n, acc=acc, bacc=bacc, tab=tab,
                         p=mcnemar(tab["run"], tab["base"]),
                         ci=newcombe10(tab["both"], tab["run"], tab["base"], tab["neither"])))
    for row, ph in zip(rows, holm([row["p"] for row in rows])):
        row["holm"] = ph
    print("# bin/bench compare --db /tmp/ref.db 2 1 3 --format json")
    for row in rows:
        t = row["tab"]
        print("run %d vs 2: n=%d accuracy=%s baseline=%s difference=%s both=%d run_only=%d baseline_only=%d neither=%d"
              % (row["run"], row["n"], row["acc"], row["bacc"], row["acc"] - row["bacc"],
                 t["both"], t["run"], t["base"], t["neither"]))
        print("  p_value = %s = %r" % (row["p"], float(row["p"])))
        print("  p_holm  = %s = %r" % (row["holm"], float(row["holm"])))
        print("  ci      = [%r, %r]" % row["ci"])

    cotsc = by_id[1]
    k = max(len(it["samples"]) for it in cotsc["items"])
    print("# bin/bench report --db /tmp/ref.db --by k --runs 1 --format json (run 1, k=%d)" % k)
    for kp in range(1, k + 1):
        vote = best = tokens = Fraction(0)
        m = 0
        for it in cotsc["items"]:
            s = it["samples"]
            if len(s) < kp:
                continue
            m += 1
            subsets = list(combinations(range(len(s)), kp))
            vote += Fraction(sum(vote_right(s, sub) for sub in subsets), len(subsets))
            best += Fraction(sum(any(s[i]["correct"] for i in sub) for sub in subsets), len(subsets))
            tokens += it["prompt_tokens"] + Fraction(it["completion_tokens"] * kp, len(s))
        vote, best, tokens = vote / m, best / m, tokens / m
        print("k'=%d items=%d vote=%s=%r best_of=%s=%r tokens_per_item=%s=%r"
              % (kp, m, vote, float(vote), best, float(best), tokens, float(tokens)))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "make":
        make(sys.argv[2:])
    else:
        reference()
