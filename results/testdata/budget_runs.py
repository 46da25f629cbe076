#!/usr/bin/env python3
"""Reference values for results/budget_test.go (bench report --by budget,
--by level, --by difficulty), computed from budget_runs.json with Python's
standard library alone (fractions, itertools, statistics).

budget_runs.json is a declared synthetic fixture, not model output: three
runs over twelve problems (labels "level" 1-3), drawn from
random.Random(28) by

    python3 results/testdata/budget_runs.py make > results/testdata/budget_runs.json

- run 1, cotsc k=8: one call (purpose cotsc) per problem, eight samples
  with vote keys ("a" right, "b", "c", null abstains); one problem has six
  samples, so N'=8 counts eleven problems;
- run 2, bon: one generation call (purpose sample) and eight verifier calls
  (purpose verify) per problem, every sample with an aggregated verifier
  score in tenths (ties on purpose);
- run 3, cot: one call (purpose cot) and one judge call (purpose judge,
  which the budget leaves out).

Then

    python3 results/testdata/budget_runs.py > results/testdata/budget_expected.json

writes every row bench report --by budget must give unsplit, split by the
"level" label, and split by difficulty from run 1's pass rate, each figure
as an exact fraction "p/q":

- generated tokens: completion tokens of calls whose purpose is neither
  verify nor judge; verifier tokens: prompt + completion tokens of verify
  calls; means per problem; at N' < N each problem's are scaled by N'/N.
- N' in powers of two below the largest N, and that N; over the problems
  with at least N' samples; every N'-subset enumerated with
  itertools.combinations.
- vote: most votes, a tie to the key seen first in the subset, null keys
  abstain, an all-abstaining subset wrong; best: the highest score, a tie
  to the earliest sample; weighted: scores summed per non-null key, the
  largest sum (floats added in sample order, as search-and-learn adds
  them), a tie to the key seen first.
- difficulty: pass@1 per problem of run 1 (right samples / samples), cut
  points statistics.quantiles(n=5, method="inclusive") (numpy's linear
  default), level 5 below the first cut, 4 below the second, 3, 2, else 1.
"""
import json
import random
import statistics
import sys
from fractions import Fraction
from itertools import combinations

HERE = __file__.rsplit("/", 1)[0]


def make():
    rng = random.Random(28)
    runs = []

    def sample(level, scored):
        u = rng.random()
        if u < 0.1:
            key = None
        elif u < 0.1 + 0.75 / level:
            key = "a"
        else:
            key = rng.choice(["b", "c"])
        s = {"answer": key or "", "key": key, "correct": key == "a"}
        if scored:
            # Right answers score a little higher on average; tenths tie.
            s["score"] = round(min(1.0, rng.random() * 0.8 + (0.2 if key == "a" else 0.0)), 1)
        return s

    for rid, strategy in ((1, "cotsc"), (2, "bon"), (3, "cot")):
        items = []
        for idx in range(12):
            level = idx % 3 + 1
            it = {"idx": idx, "level": str(level), "calls": []}
            if strategy == "cot":
                it["correct"] = rng.random() < 0.6 / level
                it["calls"].append({"purpose": "cot", "prompt": 120, "completion": rng.randint(30, 60)})
                it["calls"].append({"purpose": "judge", "prompt": 200, "completion": rng.randint(5, 15)})
            else:
                k = 6 if (strategy == "cotsc" and idx == 4) else 8
                it["samples"] = [sample(level, strategy == "bon") for _ in range(k)]
                it["correct"] = False  # the run's own verdict; N' rows recompute it
                gen = "cotsc" if strategy == "cotsc" else "sample"
                it["calls"].append({"purpose": gen, "prompt": 110, "completion": sum(rng.randint(20, 50) for _ in range(k))})
                if strategy == "bon":
                    for _ in range(k):
                        it["calls"].append({"purpose": "verify", "prompt": rng.randint(150, 250), "completion": 0})
            items.append(it)
        runs.append({"id": rid, "strategy": strategy, "items": items})
    out = []
    for run in runs:
        items = run.pop("items")
        head = json.dumps(run)[:-1]
        out.append(head + ', "items": [\n' + ",\n".join("  " + json.dumps(it) for it in items) + "\n]}")
    sys.stdout.write('{"runs": [\n' + ",\n".join(out) + "\n]}\n")


def vote_right(s, sub):
    count, first = {}, {}
    for i in sub:
        k = s[i]["key"]
        if k is None:
            continue
        count[k] = count.get(k, 0) + 1
        first.setdefault(k, i)
    if not count:
        return False
    top = max(count.values())
    return s[min(first[k] for k in count if count[k] == top)]["correct"]


def best_right(s, sub):
    top = max(s[i]["score"] for i in sub)
    return s[min(i for i in sub if s[i]["score"] == top)]["correct"]


def weighted_right(s, sub):
    total, first = {}, {}
    for i in sub:
        k = s[i]["key"]
        if k is None:
            continue
        # Floats added in sample order, as search-and-learn's defaultdict(float)
        # does: a sum like 0.1 + 0.2 beats 0.3 there too.
        total[k] = total.get(k, 0.0) + s[i]["score"]
        first.setdefault(k, i)
    if not total:
        return False
    top = max(total.values())
    return s[min(first[k] for k in total if total[k] == top)]["correct"]


RULES = {"vote": vote_right, "best": best_right, "weighted": weighted_right}


def tokens(it):
    gen = sum(c["completion"] for c in it["calls"] if c["purpose"] not in ("verify", "judge"))
    ver = sum(c["prompt"] + c["completion"] for c in it["calls"] if c["purpose"] == "verify")
    return gen, ver


def frac(x):
    x = Fraction(x)
    return "%d/%d" % (x.numerator, x.denominator)


def rows_of(run, items, level):
    out = []
    if run["strategy"] == "cot":
        n = len(items)
        gen = sum(tokens(it)[0] for it in items)
        ver = sum(tokens(it)[1] for it in items)
        out.append({"level": level, "run": run["id"], "select": "", "k": 0, "items": n,
                    "accuracy": frac(Fraction(sum(it["correct"] for it in items), n)),
                    "generated": frac(Fraction(gen, n)), "verifier": frac(Fraction(ver, n))})
        return out
    kmax = max(len(it["samples"]) for it in items)
    ks, k = [], 1
    while k < kmax:
        ks.append(k)
        k *= 2
    ks.append(kmax)
    rules = ["vote"] if run["strategy"] == "cotsc" else ["vote", "best", "weighted"]
    for rule in rules:
        for kp in ks:
            acc = gen = ver = Fraction(0)
            m = 0
            for it in items:
                s = it["samples"]
                if len(s) < kp:
                    continue
                m += 1
                subs = list(combinations(range(len(s)), kp))
                acc += Fraction(sum(RULES[rule](s, sub) for sub in subs), len(subs))
                g, v = tokens(it)
                gen += Fraction(g * kp, len(s))
                ver += Fraction(v * kp, len(s))
            if m == 0:
                continue
            out.append({"level": level, "run": run["id"], "select": rule, "k": kp, "items": m,
                        "accuracy": frac(acc / m), "generated": frac(gen / m), "verifier": frac(ver / m)})
    return out


def difficulty(run):
    p = {}
    for it in run["items"]:
        s = it.get("samples")
        p[it["idx"]] = Fraction(sum(x["correct"] for x in s), len(s)) if s else Fraction(int(it["correct"]))
    cuts = statistics.quantiles(sorted(p.values()), n=5, method="inclusive")
    levels = {}
    for idx, v in p.items():
        lv = 1
        for i, c in enumerate(cuts):
            if v < c:
                lv = 5 - i
                break
        levels[idx] = str(lv)
    return levels, [frac(c) for c in cuts]


def reference():
    with open(HERE + "/budget_runs.json") as f:
        runs = json.load(f)["runs"]
    out = {"unsplit": [], "level": [], "difficulty": []}
    diff, cuts = difficulty(runs[0])
    out["difficulty_cuts"] = cuts
    for run in runs:
        out["unsplit"] += rows_of(run, run["items"], "")
        for name, of in (("level", lambda it: it["level"]), ("difficulty", lambda it: diff[it["idx"]])):
            for v in sorted({of(it) for it in run["items"]}, key=int):
                out[name] += rows_of(run, [it for it in run["items"] if of(it) == v], "%s=%s" % (name, v))
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "make":
        make()
    else:
        reference()
