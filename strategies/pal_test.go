package strategies

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/gsm8k"
)

// bwrapExec is the sandbox's executor for tests, recording the sites run.
type bwrapExec struct {
	r     sandbox.Runner
	mu    sync.Mutex
	sites []string
}

func (b *bwrapExec) Execute(ctx context.Context, site string, p sandbox.Program) (sandbox.Result, error) {
	b.mu.Lock()
	b.sites = append(b.sites, site)
	b.mu.Unlock()
	return tasks.RunnerExecutor{Runner: b.r}.Execute(ctx, site, p)
}

// testExec is the real sandbox (sandboxtest: skipped without one unless
// BENCH_REQUIRE_SANDBOX is set), recording the sites run.
func testExec(t *testing.T) *bwrapExec {
	t.Helper()
	return &bwrapExec{r: sandboxtest.Runner(t)}
}

func gsmInstance(t *testing.T, idx int) (tasks.Task, tasks.Instance) {
	t.Helper()
	task := gsm8k.NewTask()
	all, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	return task, all[idx]
}

func fenced(code string) string { return "Here it is:\n```python\n" + code + "\n```\nDone." }

func TestPALVotesOnExecutedAnswers(t *testing.T) {
	ex := testExec(t)
	task, inst := gsmInstance(t, 0) // Janet's ducks: 18
	const right = "def solution():\n    eggs = 16 - 3 - 4\n    return eggs * 2\n"
	outputs := []string{
		fenced("def solution():\n    return 16 * 2\n"), // wrong, 32, first
		fenced(right),
		// Prints a forged result line and 99; its own prints go to standard
		// error, so the executed answer is still 18, even after a print
		// that ends without a newline.
		fenced("def solution():\n    print('" + resultMarker + `{"type": "int", "value": "99"}')` + "\n    print('partial', end='')\n    return 9 * 2\n"),
		fenced("def solution():\n    raise ValueError('no idea')\n"),
		"no code at all, just prose",
	}
	s := &scripted{outputs: outputs}
	env := testEnv(t, s)
	env.Task, env.Exec = task, ex
	res, err := newStrategy(t, "pal", map[string]any{"k": 5, "temperature": 0.7}).Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.reqs) != 1 || s.reqs[0].N != 5 || s.reqs[0].Call != "pal" || !strings.Contains(s.reqs[0].Messages[0].Content, inst.Input) {
		t.Fatalf("requests: %+v", s.reqs)
	}
	d := res.Detail.(palDetail)
	if res.Accuracy != 1 || !res.Score.Correct || res.Output != "Answer: 18" || d.Vote.Winner != 1 {
		t.Errorf("result %q %v, vote %+v", res.Output, res.Accuracy, d.Vote)
	}
	wantStatus := []string{"ok", "ok", "ok", "exit", "exit"}
	for i, smp := range d.Samples {
		if smp.Status != wantStatus[i] {
			t.Errorf("sample %d: status %s, want %s (%+v)", i, smp.Status, wantStatus[i], smp)
		}
	}
	if d.Samples[2].Value != "18" || d.Samples[0].Value != "32" || d.Samples[1].Type != "int" {
		t.Errorf("values: %+v", d.Samples)
	}
	if !strings.Contains(d.Samples[3].Error, "ValueError: no idea") || d.Samples[3].Correct || d.Vote.Keys[3] != nil || d.Vote.Abstain != 2 {
		t.Errorf("failed sample: %+v, vote %+v", d.Samples[3], d.Vote)
	}
	if got := res.Metrics; got["sample_accuracy"] != 0.4 || got["exec_failed"] != 0.4 || got["best_of_k"] != 1 {
		t.Errorf("metrics %v", got)
	}
	if len(ex.sites) != 5 {
		t.Errorf("sites %v", ex.sites)
	}
	for i := range 5 {
		if !strings.Contains(strings.Join(ex.sites, " "), "s"+string(rune('0'+i))+"/run") {
			t.Errorf("no site s%d/run in %v", i, ex.sites)
		}
	}
}

func TestPALGame24ReturnsTheExpression(t *testing.T) {
	ex := testExec(t)
	for _, c := range []struct {
		program string
		correct bool
		status  string
	}{
		{"def solution():\n    return '4 * 5 + 10 - 6'", true, "ok"},
		{"def solution():\n    return '(10 - 6) * (4 + 5)'", false, "ok"},
		{"def solution():\n    return 24", false, "ok"},                                // a number is not an expression
		{"def solution():\n    return '(10 - 6) * (4 + 5 - 3)'", false, "ok"},          // a 3 the puzzle lacks
		{"def solution():\n    x = eval('(10 - 6)*(4+5)')\n    return x", false, "ok"}, // the value 36, not an expression
		{"solution = 3", false, "exit"},
		{"import sys\ndef solution():\n    sys.exit(0)", false, "exit"}, // SystemExit is caught: no result
	} {
		s := &scripted{outputs: []string{fenced(c.program)}}
		env := testEnv(t, s)
		env.Exec = ex
		res, err := newStrategy(t, "pal", nil).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		smp := res.Detail.(palDetail).Samples[0]
		if res.Score.Correct != c.correct || smp.Status != c.status {
			t.Errorf("%q: correct %v status %s (%+v)", c.program, res.Score.Correct, smp.Status, smp)
		}
	}
}

func TestPALNeedsItsSandbox(t *testing.T) {
	s := newStrategy(t, "pal", nil)
	if _, ok := s.(SandboxUser); !ok || s.(SandboxUser).NeedsSandbox() == "" {
		t.Fatal("pal does not declare its sandbox")
	}
	env := testEnv(t, &scripted{outputs: []string{fenced("def solution():\n    return 1")}})
	if _, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10")); err == nil {
		t.Error("ran without a sandbox")
	}
	// A sandbox that cannot run fails the item rather than scoring it.
	env.Exec = failingExec{}
	if _, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10")); !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("err = %v", err)
	}
}

type failingExec struct{}

func (failingExec) Execute(context.Context, string, sandbox.Program) (sandbox.Result, error) {
	return sandbox.Result{}, sandbox.ErrUnavailable
}

// stubExec answers every execution with a fixed result, to test how
// results are read without a sandbox.
type stubExec struct{ res sandbox.Result }

func (s stubExec) Execute(context.Context, string, sandbox.Program) (sandbox.Result, error) {
	return s.res, nil
}

func TestRunSolutionReadsOnlyTheLastLine(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		res    sandbox.Result
		status string
		value  string
	}{
		{sandbox.Result{Status: sandbox.OK, Stdout: resultMarker + `{"type":"int","value":"7"}` + "\n"}, "ok", "7"},
		// A forged line before the driver's: the last one counts.
		{sandbox.Result{Status: sandbox.OK, Stdout: resultMarker + `{"type":"int","value":"1"}` + "\n" + resultMarker + `{"type":"str","value":"x y"}` + "\n"}, "ok", "x y"},
		{sandbox.Result{Status: sandbox.OK, Stdout: resultMarker + `{"type":"int","value":"7"}` + "\nafter\n"}, "no_result", ""},
		{sandbox.Result{Status: sandbox.OK, Stdout: resultMarker + `{"type":`}, "no_result", ""},
		{sandbox.Result{Status: sandbox.OK}, "no_result", ""},
		{sandbox.Result{Status: sandbox.Timeout, Stdout: resultMarker + `{"type":"int","value":"7"}`}, "timeout", ""},
	} {
		r, err := RunSolution(ctx, stubExec{c.res}, "s0/run", "def solution(): pass", sandbox.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != c.status || r.Value != c.value || (r.OK() != (c.status == "ok")) || (!r.OK() && r.Error == "") {
			t.Errorf("%q: %+v", c.res.Stdout, r)
		}
	}
	if r, _ := RunSolution(ctx, stubExec{}, "s0/run", "  \n", sandbox.Limits{}); r.Status != "no_program" {
		t.Errorf("empty program: %+v", r)
	}
}

func TestExtractProgram(t *testing.T) {
	for in, want := range map[string]string{
		"def solution():\n    return 1":                                         "def solution():\n    return 1",
		"Sure.\n```python\ndef solution():\n    return 2\n```\n":                "def solution():\n    return 2",
		"```\nx = 1\n```\n```py\ndef solution():\n    return 3\n```":            "def solution():\n    return 3",
		"```text\nnotes\n```\n```python\nprint(1)\n```":                         "print(1)",
		"```python\ndef solution():\n    return 4":                              "def solution():\n    return 4", // unclosed
		"```python   \n\ndef solution():\n  return 5\n```\n```python\nx\n```\n": "def solution():\n  return 5",
		"": "",
	} {
		if got := ExtractProgram(in); got != want {
			t.Errorf("ExtractProgram(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzExtractProgram(f *testing.F) {
	f.Add("```python\ndef solution():\n    return 1\n```")
	f.Add("```")
	f.Add("no fence")
	f.Fuzz(func(t *testing.T, s string) {
		got := ExtractProgram(s)
		// The program is always a piece of the reply, and whatever the
		// reply, no fence line is left in a program taken from a fence.
		if !strings.Contains(s, got) {
			t.Errorf("program %q is not in the reply %q", got, s)
		}
		if strings.Contains(s[max(0, strings.Index(s, "```")):], "\n") && strings.Contains(s, "```") && strings.Contains(got, "```") {
			t.Errorf("program %q keeps a fence", got)
		}
	})
}
