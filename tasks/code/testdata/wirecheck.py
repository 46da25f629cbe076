# Properties of wire.py on one input (hex on standard input), for
# FuzzWire and TestWire: decoding any bytes gives plain data or WireError,
# and what it gives encodes and decodes to itself; a value built from the
# bytes crosses unchanged, types and float bits included.
import math, sys
import wire

PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, set, frozenset, dict)


def same(a, b):
    if type(a) is not type(b) or type(a) not in PLAIN:
        return False
    if type(a) is float:
        return a.hex() == b.hex() or (math.isnan(a) and math.isnan(b))
    if type(a) is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(map(wire.encode, a)) == list(map(wire.encode, b)) and all(same(a[k], b[k]) for k in a)
    if type(a) in (set, frozenset):
        return sorted(map(wire.encode, a)) == sorted(map(wire.encode, b))
    return a == b


def build(data):
    """A value made from data's bytes: each byte picks a constructor."""
    pos = [0]

    def byte():
        if pos[0] >= len(data):
            return 0
        pos[0] += 1
        return data[pos[0] - 1]

    def atom():
        k = byte() % 9
        x = byte()
        return [None, x % 2 == 0, (x - 128) * 7 ** byte(), (x - 128) / (byte() or 0.5), float.fromhex("0x1.%xp%d" % (x, byte() - 128)),
                complex(x, -byte()), bytes(data[pos[0]:pos[0] + x % 8]).decode("latin-1") + chr(0xd800 + x), bytes(data[:x % 5]),
                [math.inf, -math.inf, math.nan, -0.0][x % 4]][k]

    def value(depth):
        k = byte() % 8
        if depth > 5 or k < 3 or pos[0] >= len(data):
            return atom()
        n = byte() % 4
        items = [value(depth + 1) for _ in range(n)]
        keys = [atom() for _ in range(n)]
        hashable = [x for x in keys if not isinstance(x, float) or not math.isnan(x)]
        return [list, tuple, lambda xs: set(hashable), lambda xs: frozenset(hashable), lambda xs: dict(zip(hashable, xs))][k % 5](items)

    return value(0)


data = bytes.fromhex(sys.stdin.readline().strip())
try:
    v = wire.decode(data)
except wire.WireError:
    pass
else:
    if not same(wire.decode(wire.encode(v)), v):
        print("FAIL: decoded %r, which does not cross unchanged" % (v,))
built = build(data)
back = wire.decode(wire.encode(built))
if not same(back, built):
    print("FAIL: built %r, crossed as %r" % (built, back))
print("ok")
