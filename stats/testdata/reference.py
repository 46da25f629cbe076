#!/usr/bin/env python3
"""Reference values for stats tests, from exact formulas in Python's
fractions, math and statistics modules (scipy is not installed on the
machine that wrote them). Run: python3 stats/testdata/reference.py

- McNemar: scipy.stats.binomtest(b, b+c, 0.5).pvalue. With p = 1/2 the
  binomial is symmetric, and scipy's two-sided rule (sum the outcomes no
  likelier than the observed one) gives 2*P(X <= min(b, c)), capped at 1.
  Computed here in exact rationals.
- Holm: statsmodels.stats.multitest.multipletests(p, method="holm")[1],
  written out: sorted p_(i) * (m - i), running maximum, capped at 1.
- Newcombe (1998) paired method 10, from the paper's formulas.
- Connor (1987): n = ceil((z_{1-a/2} sqrt(psi) + z_power sqrt(psi - d^2))^2 / d^2).
- Vote curves: every k'-subset enumerated with itertools.combinations.
"""
from fractions import Fraction
from math import comb, sqrt, ceil
from itertools import combinations
from statistics import NormalDist

def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    m = min(b, c)
    tail = Fraction(sum(comb(n, i) for i in range(m + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))

def holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    run = 0.0
    for r, i in enumerate(order):
        run = max(run, min(1.0, (m - r) * p[i]))
        out[i] = run
    return out

def wilson(x, n, z):
    p = x / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z / den * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return c - h, c + h

def newcombe10(a, b, c, d, level=0.95):
    n = a + b + c + d
    z = NormalDist().inv_cdf((1 + level) / 2)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, z)
    l2, u2 = wilson(a + c, n, z)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    # Newcombe's correlation term: a positive ad - bc is first reduced by
    # n/2 and floored at 0 (as contingencytables'
    # Newcombe_square_and_add_CI_paired_2x2 and Altman et al. 2000 ch. 6).
    A = a * d - b * c
    if den == 0:
        phi = 0.0
    elif A > n / 2:
        phi = (A - n / 2) / sqrt(den)
    elif A >= 0:
        phi = 0.0
    else:
        phi = A / sqrt(den)
    dl = sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    du = sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return max(-1.0, p1 - p2 - dl), min(1.0, p1 - p2 + du)

def connor(delta, psi, alpha, power):
    za = NormalDist().inv_cdf(1 - alpha / 2)
    zb = NormalDist().inv_cdf(power)
    return ceil((za * sqrt(psi) + zb * sqrt(psi - delta ** 2)) ** 2 / delta ** 2)

def winner(keys, idx):
    count, first, best = {}, {}, None
    for i in idx:
        k = keys[i]
        if k < 0:
            continue
        first.setdefault(k, i)
        count[k] = count.get(k, 0) + 1
        if best is None or count[k] > count[best] or (count[k] == count[best] and first[k] < first[best]):
            best = k
    return -1 if best is None else first[best]

def vote_curve(items):
    kmax = max(len(k) for k, _ in items)
    out = []
    for kp in range(1, kmax + 1):
        v = b = Fraction(0)
        m = 0
        for keys, correct in items:
            if len(keys) < kp:
                continue
            m += 1
            subs = list(combinations(range(len(keys)), kp))
            v += Fraction(sum(1 for s in subs if winner(keys, s) >= 0 and correct[winner(keys, s)]), len(subs))
            b += Fraction(sum(1 for s in subs if any(correct[i] for i in s)), len(subs))
        out.append((kp, float(v / m), float(b / m)))
    return out

if __name__ == "__main__":
    for b, c in [(0, 0), (1, 0), (5, 5), (3, 9), (9, 3), (12, 2), (0, 10), (40, 60), (150, 110)]:
        print("mcnemar", b, c, repr(mcnemar(b, c)))
    print("holm", holm([0.01, 0.04, 0.03, 0.005, 0.5]))
    print("holm", holm([0.2, 0.2, 0.01]))
    for t in [(36, 12, 2, 0), (10, 5, 2, 83), (0, 0, 0, 10), (5, 0, 0, 5), (3, 7, 1, 4), (40, 15, 5, 40), (59, 6, 16, 80), (1, 1, 7, 12)]:
        print("newcombe", t, newcombe10(*t))
    for args in [(0.1, 0.2, 0.05, 0.8), (0.05, 0.3, 0.05, 0.9), (0.2, 0.25, 0.01, 0.8), (-0.1, 0.2, 0.05, 0.8)]:
        print("connor", args, connor(*args))
    items = [
        ([0, 1, 0, 2, 1, -1, 0], [True, False, True, False, False, False, True]),
        ([0, 1, 2, 1, 2, 0], [False, True, False, True, False, False]),
        ([-1, -1, 3, 3, 1], [False, False, True, True, False]),
        ([-1, -1, -1, -1, 0, 1, 1, 0], [False, False, False, False, True, False, False, True]),
    ]
    for row in vote_curve(items):
        print("curve", row)

# Paired t: Student's t density integrated numerically (Simpson, 200,000
# panels), an independent check of the incomplete-beta CDF in dist.go.
from math import lgamma, exp, pi, log
def t_pdf(x, df):
    return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * pi) - (df + 1) / 2 * log(1 + x * x / df))
def t_cdf(x, df, panels=200000):
    # P(T <= x) = 1/2 + integral_0^x pdf
    h = x / panels
    s = t_pdf(0, df) + t_pdf(x, df)
    for i in range(1, panels):
        s += (4 if i % 2 else 2) * t_pdf(i * h, df)
    return 0.5 + s * h / 3
def t_ppf(p, df):
    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if t_cdf(mid, df, 20000) < p: lo = mid
        else: hi = mid
    return (lo + hi) / 2
if __name__ == "__main__":
    d = [0.5, 0.2, -0.1, 0.4, 0.3]
    n = len(d); m = sum(d) / n
    sd = sqrt(sum((x - m) ** 2 for x in d) / (n - 1)); se = sd / sqrt(n)
    q = t_ppf(0.975, n - 1); tt = m / se
    print("pairedt mean", m, "ci", m - q * se, m + q * se, "p", 2 * (1 - t_cdf(tt, n - 1)))
