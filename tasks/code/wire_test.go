package code

import (
	"context"
	"embed"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
)

// TestWire: the encoding keeps Python's types (a tuple stays a tuple, a
// frozenset a frozenset, a float its exact bits, a huge int its digits),
// turns a subclass into the plain value it holds, refuses an object of
// any other type, and refuses malformed bytes with WireError only.
func TestWire(t *testing.T) {
	src := `import collections, math, wire
from wirecheck_same import same
vals = [None, True, False, 0, -1, 2**4400, -(3**3000), 0.1, -0.0, 1e-310, math.inf, -math.inf, math.nan, 1.7976931348623157e308,
        complex(1.5, -0.0), "", "h\u00e9llo\ud800\n", b"\x00\xff", [], (), set(), frozenset(), {},
        [1, (2,), {3}, frozenset({4}), {"a": [1.5]}], ((),), {(1, 2): {"x": b""}}, [[[[[]]]]] * 3, {1: 2, True: 3, 1.0: 4}]
for v in vals:
    if not same(wire.decode(wire.encode(v)), v):
        print("changed", repr(v)[:60])
if wire.decode(wire.encode([(1, 2)])) == [[1, 2]] or type(wire.decode(wire.encode(1.0))) is not float:
    print("tuple became list, or float became int")
class Eq:
    def __eq__(self, o): return True
class EqInt(int):
    def __eq__(self, o): return True
    __hash__ = int.__hash__
class EqList(list):
    def __eq__(self, o): return True
    def __iter__(self): return iter([9, 9])
    def __len__(self): return 2
P = collections.namedtuple("P", "x y")
for v, want in [(EqInt(7), 7), (EqList([1]), [1]), (collections.Counter("aab"), {"a": 2, "b": 1}), (P(1, 2), (1, 2)),
                (collections.OrderedDict(a=1), {"a": 1})]:
    got = wire.decode(wire.encode(v))
    if not same(got, want):
        print("subclass", type(v).__name__, "crossed as", repr(got))
loop = []
loop.append(loop)
for v in [Eq(), [Eq()], {"k": Eq()}, iter([]), (x for x in []), len, lambda: 1, loop, object(), range(3), 1j ** 0 if False else type]:
    try:
        wire.encode(v)
        print("encoded", repr(v)[:60])
    except wire.Unencodable:
        pass
for bad in [b"", b"x", b"l2:i1;", b"S1:l0:", b"i;", b"i-;", b"i0x1;", b"i1_0;", b"i 1;", b"fzz;", b"N N", b"l99999999999999:", b"s5:ab",
            b"d1:i1;", b"f" + b"1" * 50 + b";", b"s1:\xff", b"l" + b"9" * 11 + b":", b"t1:" * 100000 + b"N", b"d1:l0:N"]:
    try:
        v = wire.decode(bad)
        print("accepted", bad[:20], repr(v)[:40])
    except wire.WireError:
        pass
deep = b"l1:" * 400 + b"N"
if wire.decode(deep) is None or wire.encode(wire.decode(deep)) != deep:
    print("400 levels refused")
print("done")
`
	same := wirecheckSource(t)
	res, err := sandboxtest.Runner(t).Run(context.Background(), sandbox.Program{Source: src,
		Files: map[string]string{"wire.py": wirePy, "wirecheck_same.py": same}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sandbox.OK || res.Stdout != "done\n" {
		t.Fatalf("%s: %s%s", res.Reason(), res.Stdout, res.Stderr)
	}
}

// wirecheckSource is testdata/wirecheck.py's functions without its main
// part, for importing.
func wirecheckSource(t testing.TB) string {
	t.Helper()
	b, err := testdataFS.ReadFile("testdata/wirecheck.py")
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := strings.Cut(string(b), "\ndata = ")
	return s
}

// FuzzWire: for any bytes, decoding gives plain data that crosses
// unchanged or WireError (never another exception, never a crash), and
// the value built from the bytes crosses unchanged, types and float bits
// included (testdata/wirecheck.py). Each input is one sandbox run.
func FuzzWire(f *testing.F) {
	for _, s := range []string{"N", "l3:i1;t1:f0x1.8p+0;S0:", "d1:s1:ab2:\xff\x00", "Z2:i-1f;c0x0p+0,-0x0p+0;", "i" + strings.Repeat("f", 300) + ";",
		"", "l1:", "S1:l0:", "\x00\x01\x02\x03\x04\x05\x06\x07\x08", "fnan;", "t2:d0:Z0:", strings.Repeat("l1:", 500) + "N"} {
		f.Add([]byte(s))
	}
	check, err := testdataFS.ReadFile("testdata/wirecheck.py")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		res, err := sandboxtest.Runner(t).Run(context.Background(), sandbox.Program{Source: string(check),
			Files: map[string]string{"wire.py": wirePy}, Stdin: hex.EncodeToString(data) + "\n"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != sandbox.OK || res.Stdout != "ok\n" {
			t.Fatalf("%x: %s: %s%s", data, res.Reason(), res.Stdout, res.Stderr)
		}
	})
}

//go:embed testdata/wirecheck.py
var testdataFS embed.FS
