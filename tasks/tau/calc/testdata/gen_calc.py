# Writes cases.json.gz: the reference's calculate tool's result for each of
# many expressions, run by the reference's own code (sierra-research/tau-bench,
# tau_bench/envs/airline/tools/calculate.py), imported from a checkout.
# Usage: python3 gen_calc.py CHECKOUT | gzip -n -9 > cases.json.gz   (Python 3.11)
# Expressions whose evaluation takes CPython more than two seconds are left
# out (calc reports MemoryError for those).
import importlib
import json
import random
import signal
import sys
import types
import warnings

warnings.simplefilter("ignore")  # eval's SyntaxWarnings ("perhaps you missed a comma?")
sys.modules.setdefault("litellm", types.SimpleNamespace(completion=None))
sys.path.insert(0, sys.argv[1])
Calculate = importlib.import_module("tau_bench.envs.airline.tools.calculate").Calculate


class Slow(Exception):
    pass


def alarm(*_):
    raise Slow()


signal.signal(signal.SIGALRM, alarm)


def run(expr):
    signal.alarm(2)
    try:
        return Calculate.invoke(data={}, expression=expr)
    finally:
        signal.alarm(0)


exprs = [
    "", " ", "1", " 1", "1 ", "(250 + 120) * 2 - 30.5", "1/3", "2/3", "10/4", "2.675 * 1", "1.005*1", "0.125*1",
    "0.375*1", "100 - 12.5 * 2", "1e300", "x", "1/0", "1.0/0", "1//0", "1.0//0", "1//0.0", "7//2", "-7//2",
    "7.5//2", "-7.5//2", "-7//-2.5", "2**-1", "0**-1", "0.0**-1", "2**0.5", "(-8)**0.5", "(-8)**(1/3)",
    "(-8)**2", "(-8)**3", "(-2.5)**3", "10**400/10**399", "10**400*1.0", "10**308*10.0", "1.5**1000", "2**1023*2.0",
    "9" * 400, "9" * 400 + ".0", "0.1+0.2", "1000000*1000000*1000000*1000000.0", "00", "00.5", "01", "0 1", "007",
    "(1", "((", ")", "(1))", "1)", "(*1", "(*1)", "(**1)", "*1", "**1", "(1 2", "(1 2)", "1 2", "()", "(())",
    "(1)", "( )", "...", " ... ", "....", "1..2", "1.2.3", "1 .5", "1()", "(1)(2)", "((1) 2)", "(1) 2", "1 (2 3)",
    "0(**())", "0(*())", "0(*820)", "...(1)", "4.5(*1)", "()(*1)", "1(*)", "-()", "+()", "()*3", "()*3.0", "3*()",
    "()*()", "()**2", "()+()", "()+1", "1+()", "...+1", "()*10**100", "((-8)**0.5)*()", "1/(-8)**0.5",
    "((-8)**0.5)//1", "((-8)**0.5)/0", "(0*(-8)**0.5)**-1", "(2*(-1)**0.5)**2000", "(2*(-1)**0.5)**20",
    "((-1)**0.5)(1)", "((-1)**0.5)(*1)", "1.(2)", "1 .(2)", "-" * 50 + "1", "(" * 199 + "1" + ")" * 199,
    "(" * 200 + "1" + ")" * 200, "(" * 201 + "1" + ")" * 201, "12345678901234567890*98765432109876543210",
    "2**64", "2**64/3", "(2**64+1)/2", "2**53+1.0", "3.14159*2", "1e2", "100.0/3.0", "99.995*1", "-0.0", "-0",
    "0*-1.0", "-(0.0)", "-1//3.0", "5//-0.5", "1/3*3", "123456789.123456789", "0.1*3", "1.115*1", "2.5//1",
]
rnd = random.Random(1)
alpha = "0123456789+-*/(). "
weights = [5] * 10 + [3, 3, 3, 3, 2, 2, 2, 2]
for _ in range(12000):
    exprs.append("".join(rnd.choices(alpha, weights=weights, k=rnd.randint(0, 12))))
# Realistic: numbers with an operator or two, a few parentheses.
for _ in range(4000):
    parts = []
    for i in range(rnd.randint(1, 5)):
        n = str(rnd.randint(0, 5000))
        if rnd.random() < 0.4:
            n += "." + str(rnd.randint(0, 999)).zfill(rnd.randint(1, 3))
        if i:
            parts.append(rnd.choice([" + ", " - ", " * ", " / ", "+", "-", "*", "/", " // ", "**"]) if rnd.random() < 0.95 else " ")
        parts.append(n)
    e = "".join(parts)
    if rnd.random() < 0.3:
        e = "(" + e + ")" + rnd.choice([" * 2", "/3", " - 1.5", ""])
    exprs.append(e)

# Powers: float and int bases and exponents, C's pow rounding.
for _ in range(3000):
    b = rnd.choice([str(rnd.randint(0, 99)), "%d.%d" % (rnd.randint(0, 60), rnd.randint(0, 9999)),
                    "(-%d.%d)" % (rnd.randint(0, 60), rnd.randint(0, 99)), "(-%d)" % rnd.randint(1, 30)])
    e = rnd.choice([str(rnd.randint(0, 300)), "%d.%d" % (rnd.randint(0, 200), rnd.randint(0, 9999)),
                    "-%d.%d" % (rnd.randint(0, 50), rnd.randint(0, 99)), "(-%d)" % rnd.randint(1, 80)])
    exprs.append(b + "**" + e + rnd.choice(["", " * 1.0", " / 7", " - 0.005"]))

seen = set()
cases = []
for e in exprs:
    if e in seen:
        continue
    seen.add(e)
    try:
        out = run(e)
    except Slow:
        continue
    cases.append({"expr": e, "out": out})
json.dump({"python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=0)
print()
