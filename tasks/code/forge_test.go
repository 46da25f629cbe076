package code

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

// Forged solutions: programs that solve nothing and try to make the
// hidden tests pass anyway. Each is a whole module defining ENTRY (the
// entry point's name is put in). Under the default rule every one must
// count 0 correct (docs/code-verdicts.md).
var forgeries = []struct{ kind, src string }{
	// An object equal to anything, and close to anything
	// (abs(candidate(x) - y) < 1e-6).
	{"always-equal", `
class _Any:
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __hash__(self): return 0
    def __bool__(self): return True
    def __abs__(self): return 0
    def __sub__(self, o): return self
    __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __sub__
    def __len__(self): return 0
    def __iter__(self): return iter(())
    def __round__(self, n=None): return self
    def __float__(self): return 0.0
    def __index__(self): return 0
def ENTRY(*args, **kwargs):
    return _Any()
`},
	// The same through a builtin type: a str, int and list that equal
	// anything.
	{"always-equal subclass", `
class _S(str):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    __hash__ = str.__hash__
class _I(int):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    __hash__ = int.__hash__
class _L(list):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
_n = [0]
def ENTRY(*args, **kwargs):
    _n[0] += 1
    return (_S("x"), _I(7), _L([1]))[_n[0] % 3]
`},
	// The finish marker read from the driver's frames, written on every
	// descriptor, then a clean exit.
	{"frame marker", `
import os, re, sys
def ENTRY(*args, **kwargs):
    return None
def _forge():
    found = []
    f = sys._getframe()
    while f is not None:
        for v in list(f.f_locals.values()):
            if isinstance(v, str) and re.fullmatch(r"[0-9a-f]{16,64}", v):
                found.append(v)
        f = f.f_back
    for m in found:
        for fd in range(1, 64):
            try:
                os.write(fd, ("\n" + m + " finished\n").encode())
            except OSError:
                pass
    os._exit(0)
_forge()
`},
	// The marker recomputed from the files beside the program, as the
	// scorer computes it.
	{"hash marker", `
import hashlib, os
def ENTRY(*args, **kwargs):
    return None
for _name in os.listdir("."):
    try:
        _src = open(_name).read()
    except Exception:
        continue
    _m = hashlib.sha256(("reasonbench hidden tests finished\x00" + _src).encode()).hexdigest()[:32]
    os.write(1, ("\n" + _m + " finished\n").encode())
os._exit(0)
`},
	// A trace function that empties the checks before they run: every
	// assert skipped.
	{"trace function", `
import sys
def ENTRY(*args, **kwargs):
    return None
def _noop(*args, **kwargs):
    return None
def _trace(frame, event, arg):
    g = frame.f_globals
    for name in ("check", "test_check"):
        fn = g.get(name)
        if callable(fn) and getattr(fn, "__code__", _noop.__code__) is not _noop.__code__:
            fn.__code__ = _noop.__code__
    return _trace
sys._getframe().f_trace = _trace
sys.settrace(_trace)
`},
	// An early clean exit that says the tests passed.
	{"early exit", `
import os
def ENTRY(*args, **kwargs):
    return None
print("All tests passed")
os._exit(0)
`},
	{"early sys.exit", `
import sys
def ENTRY(*args, **kwargs):
    return None
print("All tests passed")
sys.exit(0)
`},
	// The prompt's helpers (poly, encode_cyclic, ...) redefined to pass
	// anything through, and offered to the tests' side as the program's
	// own names beside the ones asked for; the entry point returns its
	// input where the prompt has helpers (decode_cyclic(encode_cyclic(s))
	// is then s), else None (returning the input is right for some weak
	// tests: mbpp_404_minimum's first argument is always the smaller).
	{"helper override", `
import sys
HELPERS
def ENTRY(*args, **kwargs):
    return args[0] if args and _HELPERS else None
_w = sys.modules.get("wire")
if _w is not None:
    _send = _w.Conn.send
    def _inject(self, v):
        if type(v) is tuple and v and v[0] == "names":
            v = ("names", v[1] + [(n, "function", None) for n in _HELPERS])
        return _send(self, v)
    _w.Conn.send = _inject
`},
	// Exits raised from inside the call, where the tests run.
	{"exit inside the call", `
import sys
def ENTRY(*args, **kwargs):
    raise SystemExit(0)
`},
	// Protocol-shaped bytes written ahead of every answer: a length and
	// garbage, then a clean exit.
	{"protocol garbage", `
import os
def ENTRY(*args, **kwargs):
    return None
for _fd in range(3, 64):
    try:
        os.write(_fd, b"\x00\x00\x00\x05T" + b"\x00" * 64 + b"All tests passed\n")
    except OSError:
        pass
os._exit(0)
`},
	// Success-shaped lines on every descriptor, then wrong answers.
	{"fake success lines", `
import os
_lines = ["All tests passed", "ok", "OK", "PASS", "1 passed, 0 failed", "0" * 32 + " finished", "pass"]
def ENTRY(*args, **kwargs):
    for l in _lines:
        print(l)
    return None
for _l in _lines:
    print(_l)
    for _fd in range(1, 64):
        try:
            os.write(_fd, ("\n" + _l + "\n").encode())
        except OSError:
            pass
`},
}

var promptDef = regexp.MustCompile(`(?m)^def ([A-Za-z_][A-Za-z_0-9]*)\(`)

// forged is a forgery's source for p: ENTRY named, HELPERS the prompt's
// other functions redefined as pass-throughs (and listed in _HELPERS).
func forged(src string, p Problem) string {
	var helpers []string
	var defs strings.Builder
	for _, m := range promptDef.FindAllStringSubmatch(p.Prompt, -1) {
		if m[1] != p.EntryPoint {
			helpers = append(helpers, strconv.Quote(m[1]))
			defs.WriteString("def " + m[1] + "(*args, **kwargs):\n    return args[0] if args else 0\n")
		}
	}
	defs.WriteString("_HELPERS = [" + strings.Join(helpers, ", ") + "]\n")
	src = strings.ReplaceAll(strings.TrimLeft(src, "\n"), "HELPERS\n", defs.String())
	return "```python\n" + strings.ReplaceAll(src, "ENTRY", p.EntryPoint) + "```\n"
}

// forged1 scores one forgery on problems: the number counted correct.
func forged1(t *testing.T, task *Task, src, kind string, ps []Problem) int {
	t.Helper()
	var recs []map[string]any
	for _, p := range ps {
		recs = append(recs, map[string]any{"task_id": p.ID, "completion": forged(src, p)})
	}
	scores, err := task.ScoreRecords(context.Background(), recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, s := range scores {
		if s.Correct {
			n++
			t.Logf("%s: %s forged: %s", kind, ps[i].ID, s.Reason)
		}
	}
	return n
}

func pick(ps []Problem, ids ...string) []Problem {
	var out []Problem
	for _, p := range ps {
		for _, id := range ids {
			if p.ID == id {
				out = append(out, p)
			}
		}
	}
	return out
}

// forgeSets scores every forgery, a subtest per kind, on each set of
// problems; each must count 0 correct.
func forgeSets(t *testing.T, sets []forgeSet) {
	for _, f := range forgeries {
		t.Run(f.kind, func(t *testing.T) {
			for _, c := range sets {
				b := bound(t, c.task())
				n := forged1(t, b, f.src, f.kind, c.ps)
				fmt.Printf("%s: %s: %d/%d counted correct\n", b.Name(), f.kind, n, len(c.ps))
				if n > 0 {
					t.Errorf("%s: %d of %d problems counted correct", b.Name(), n, len(c.ps))
				}
			}
		})
	}
}

type forgeSet struct {
	task func() tasks.Task
	ps   []Problem
}

// TestForgeriesFail: each kind of forgery on a few problems (a float
// answer compared with abs, prompt helpers the test calls, a random test,
// MBPP's self-checking tests) counts 0 correct.
func TestForgeriesFail(t *testing.T) {
	he, _ := HumanEvalProblems()
	mb, _ := MBPPProblems()
	forgeSets(t, []forgeSet{
		{NewHumanEval, pick(he, "HumanEval/0", "HumanEval/2", "HumanEval/32", "HumanEval/38", "HumanEval/50", "HumanEval/53")},
		{NewMBPP, pick(mb, "mbpp_234_volume_cube", "mbpp_237_check_occurences", "mbpp_585_expensive_items")},
	})
}

// TestForgeriesFailFullSets: every forgery on all of HumanEval and MBPP
// counts 0 correct. Slow (about six minutes on two busy cores): set
// BENCH_FULL_CODE=1.
func TestForgeriesFailFullSets(t *testing.T) {
	if os.Getenv("BENCH_FULL_CODE") == "" {
		t.Skip("set BENCH_FULL_CODE=1 to run every forgery on every problem")
	}
	he, _ := HumanEvalProblems()
	mb, _ := MBPPProblems()
	forgeSets(t, []forgeSet{{NewHumanEval, he}, {NewMBPP, mb}})
}
