# Writes cases.json: CPython's own json.loads / repr / json.dumps / str() of
# tau-bench's to_hashable / str.lower / JSONDecodeError outputs, which pyval
# must reproduce. Standard library only. Strings that may hold lone surrogates
# (str of a value, str of to_hashable of a str) are stored as the hex of their WTF-8 bytes (surrogatepass).
# Run from pyval/: python3 testdata/gen_cases.py > testdata/cases.json
import json
import random
import struct
import sys

# tau-bench's to_hashable (tau_bench/envs/base.py), restated.
def to_hashable(item):
    if isinstance(item, dict):
        return tuple((k, to_hashable(v)) for k, v in sorted(item.items()))
    if isinstance(item, list):
        return tuple(to_hashable(x) for x in item)
    return item

texts = [
    'null', 'true', 'false', '0', '-0', '-0.0', '0.0', '1', '250', '250.0', '-7', '1.5', '0.1', '0.30000000000000004',
    '1e16', '1e15', '1e+22', '1E-5', '0.0001', '0.00001', '123456789012345678', '1234567890123456789012345678901234567890',
    '-99999999999999999999', '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809',
    '1e308', '1e309', '-1e400', '5e-324', '1e-400', '2.5e-5', '1.7976931348623157e308', '123456789.123456789',
    '100000000000000000.0', '9999999999999998.0', '0.1e1', '3.14159', '1234.5', '12345678901234567.0',
    'NaN', 'Infinity', '-Infinity', '[NaN, Infinity]',
    '""', '"a"', '"it\'s"', '"say \\"hi\\""', '"both \' and \\""', '"back\\\\slash"', '"tab\\tnl\\ncr\\r"',
    '"\\u0000\\u0001\\u001f\\u007f"', '"\\b\\f/\\/"', '"caf\\u00e9"', '"\\u00a0nbsp"', '"\\u00ad soft hyphen"',
    '"\\u0085 nel"', '"\\u2028\\u2029"', '"\\u200b zwsp"', '"\\ufeff bom"', '"\\ue000 private"', '"\\uffff"',
    '"\\ud83d\\ude00 emoji"', '"\\ud800 lone high"', '"\\udc00 lone low"', '"\\ud800\\ud800"', '"\\ud800A"',
    '"\\u0378 unassigned"', '"\\u4e2d\\u6587"', '"\\u0130stanbul"', '"\\u03a3\\u0391\\u03a3"',
    '"\\ud834\\udd1e clef"', '"\\udb40\\udc01 tag"', '"\\u061c arabic mark"', '"\\u3000 ideographic space"',
    '"\\ud83c\\udff4\\udb40\\udc67"', '"\\u0e3f baht"', '"\\u20ac\\u00a3\\u00a5"', '"\\u1680"', '"\\u180e"',
    '"\\u0600"', '"\\u08e2"', '"\\u1d7ce"', '"\\ud807\\udfff"', '"\\udbff\\udfff"', '"\\ud87e\\udc00"',
    '"\\u31ef"', '"\\ufffd"', '"\\u2066"', '"\\u00b5"',
    '[]', '{}', '[1]', '[[]]', '[{}]', '{"a": 1}', '{"a": [1]}', '{"a": {}}', '{"b": 1, "a": 2}',
    '{"a": 1, "b": 2, "a": 3}', '{"z": [1, 2.0, null, true, "x"], "y": {"k": "v", "j": [[1]]}, "\\u00e9": 1, "A": 0}',
    '[1, [2, [3, [4]]]]', '{"": ""}', '{"\'": "\\""}', '[1.0, 2, 3.5e10, -0.0]',
    '{"payment_history": [{"payment_id": "gift_card_1", "amount": 250}], "status": null, "x": 3.0}',
    '  [1 , 2 ]  ',
]
rnd = random.Random(7)
for _ in range(400):
    bits = rnd.getrandbits(64)
    f = struct.unpack('<d', struct.pack('<Q', bits))[0]
    if f != f or f in (float('inf'), float('-inf')):
        continue
    texts.append(repr(f).replace('inf', '1e999'))
for _ in range(300):
    e = rnd.randint(-30, 30)
    f = round(rnd.uniform(-1, 1) * 10 ** e, rnd.randint(0, 6))
    texts.append(json.dumps(f))
for _ in range(200):
    texts.append(json.dumps(rnd.randint(-10**rnd.randint(1, 60), 10**rnd.randint(1, 60))))
for _ in range(300):
    n = rnd.randint(0, 8)
    cps = []
    for _ in range(n):
        k = rnd.random()
        if k < 0.3:
            cps.append(rnd.randint(0, 0x7f))
        elif k < 0.6:
            cps.append(rnd.randint(0x80, 0x3000))
        elif k < 0.9:
            cps.append(rnd.randint(0x3000, 0xffff))
        else:
            cps.append(rnd.randint(0x10000, 0x10ffff))
    texts.append('"' + ''.join('\\u%04x' % c if c < 0x10000 else
                               '\\u%04x\\u%04x' % (0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff))
                               for c in cps) + '"')

values = []
for t in texts:
    v = json.loads(t)
    values.append({
        "json": t,
        "repr": repr(v),
        "str_wtf8_hex": str(v).encode("utf-8", "surrogatepass").hex(),
        "dumps": json.dumps(v),
        "hashable_wtf8_hex": str(to_hashable(v)).encode("utf-8", "surrogatepass").hex(),
    })

lower_inputs = ["ABC", "Ünïcödé", "İstanbul", "ΣΑΣ", "ΑΣ Σ", "Σ", "aΣ", "aΣb", "a\u0345Σ", "ʰΣ", "ǅ", "ẞ",
                "ΑΣ\u0301", "aΣ\u0301 b", "1Σ", "A1Σ", "\u1f88", "\ufb00", "\U00010400", "ⅷ", "Ⓐ", "K", "Å"]
for _ in range(300):
    lower_inputs.append(''.join(chr(rnd.choice([rnd.randint(0x41, 0x5a), rnd.randint(0xc0, 0x24f),
                                               rnd.randint(0x370, 0x3ff), rnd.randint(0x400, 0x52f),
                                               rnd.randint(0x1e00, 0x1fff), 0x3a3, 0x3a3, 0x20,
                                               rnd.randint(0x10400, 0x1044f), rnd.randint(0x300, 0x36f)]))
                                for _ in range(rnd.randint(1, 6))))
lower = [{"in": s, "out": s.lower()} for s in lower_inputs]  # no surrogates: plain JSON strings

bad = ['', ' ', '[', '{', '[1,]', '{"a":1,}', '{"a" 1}', '{1:2}', '[1 2]', '"abc', '"a\\x"', '"\\u12"',
       '"\\ud800\\u12"', '{"a":}', '-', '1.', '01', 'nan', '-NaN', 'tru', '{"a":1 "b":2}', '"\x01"',
       '"caf\u00e9" x', '[1,\n 2,\n x]', '"\\', '[' * 2000 + ']' * 2000, '1' * 5000, '-' + '2' * 4301,
       '\ufeff{}', '{"a": [1, 2}', '"\\u00e9\u00e9" x']
errors = []
for t in bad:
    try:
        json.loads(t)
        raise SystemExit("accepted: %r" % t)
    except RecursionError as e:
        errors.append({"json": t, "type": "RecursionError", "msg": str(e)})
    except ValueError as e:
        errors.append({"json": t, "type": type(e).__name__, "msg": str(e)})

json.dump({"python": sys.version.split()[0], "values": values, "lower": lower, "errors": errors}, sys.stdout,
          indent=0)
print()
