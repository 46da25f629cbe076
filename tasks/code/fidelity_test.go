package code

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
)

// tableProgram answers every `assert candidate(literals) == literal` of
// the problem's test from a table built from the test itself: an honest
// program for exactly those calls, whose values cross as they are.
func tableProgram(p Problem) string {
	return `import ast
_T = {}
for _n in ast.walk(ast.parse(` + strconv.Quote(p.HiddenTest) + `)):
    if isinstance(_n, ast.Assert) and isinstance(_n.test, ast.Compare) and len(_n.test.ops) == 1 and isinstance(_n.test.ops[0], ast.Eq):
        _c = _n.test.left
        if isinstance(_c, ast.Call) and isinstance(_c.func, ast.Name) and _c.func.id == "candidate" and not _c.keywords:
            try:
                _T[repr(tuple(ast.literal_eval(a) for a in _c.args))] = ast.literal_eval(_n.test.comparators[0])
            except Exception:
                pass
def ` + p.EntryPoint + `(*args):
    return _T[repr(args)]
`
}

// inProcess is the verdict of the program and the test run together in
// one process, as openai/human-eval runs them (and this rule did before
// the judge had a process of its own).
func inProcess(ctx context.Context, t *testing.T, p Problem, code string) bool {
	res, err := runner(t).Execute(ctx, "", sandbox.Program{Source: "exec(compile(open('solution.py').read(), 'solution.py', 'exec'), {})\nprint('done')\n",
		Files: map[string]string{"solution.py": Program(p, code)}, Limits: Limits})
	if err != nil {
		t.Fatal(err)
	}
	return res.Passed() && res.Stdout == "done\n"
}

// TestJudgeAgreesInProcess: on every MBPP problem, a program answering the
// test's literal asserts from a table gets the same verdict from the
// judge as from running in the test's own process: every argument and
// answer MBPP's tests use crosses unchanged. Slow: BENCH_FULL_CODE=1.
func TestJudgeAgreesInProcess(t *testing.T) {
	if os.Getenv("BENCH_FULL_CODE") == "" {
		t.Skip("set BENCH_FULL_CODE=1 to compare the judge with in-process runs on all of MBPP")
	}
	ps, _ := MBPPProblems()
	b := bound(t, NewMBPP())
	recs := make([]map[string]any, len(ps))
	for i, p := range ps {
		recs[i] = map[string]any{"name": p.ID, "solution": tableProgram(p)}
	}
	scores, err := b.ScoreRecords(context.Background(), recs, 2)
	if err != nil {
		t.Fatal(err)
	}
	same, passed := 0, 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range ps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			want := inProcess(context.Background(), t, p, tableProgram(p))
			mu.Lock()
			defer mu.Unlock()
			if scores[i].Correct != want {
				t.Errorf("%s: judge says %v (%s), in process %v", p.ID, scores[i].Correct, scores[i].Reason, want)
				return
			}
			same++
			if want {
				passed++
			}
		}()
	}
	wg.Wait()
	fmt.Printf("mbpp: %d of %d verdicts agree, %d pass\n", same, len(ps), passed)
}
