package strategies

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// chain is a made-up run of problems: the first's answer leaves an
// import, a helper and a counter at the top level (lines at column 0
// after a def line, which the reference's tidying of a first answer drops
// and keeps what follows as it is); the second calls the helper and the
// module without defining them; the third counts its own calls in the
// first's counter; the fourth reads it.
type chain struct{ ps []chainProblem }

type chainProblem struct {
	prompt, entry, answer string
	tests                 string
}

var chainProblems = []chainProblem{
	{"def first(x: int) -> int:\n    \"\"\"Return 0.\"\"\"\n", "first",
		"def first(x: int) -> int:\n    return 0\nimport math\nn = 0\n_sq = lambda x: x * x",
		"assert first(1) == 0"},
	{"def second(x: int) -> int:\n    \"\"\"Return x squared plus its root.\"\"\"\n", "second",
		"    return _sq(x) + int(math.sqrt(x))",
		"assert second(4) == 18\nassert second(9) == 85"},
	{"def third(x: int) -> int:\n    \"\"\"Count.\"\"\"\n", "third",
		"    global n\n    n = n + 1\n    return n",
		"assert third(0) == 100\nassert third(0) == 3"},
	// n is 3 only if the replay of the third problem fetched its failing
	// test's output between its two tests, as the reference did.
	{"def fourth(x: int) -> int:\n    \"\"\"Read the count.\"\"\"\n", "fourth",
		"    return n",
		"assert fourth(0) == 3"},
}

func (chain) Name() string { return "mbpp" }
func (c chain) Instances() ([]tasks.Instance, error) {
	var out []tasks.Instance
	for i, p := range c.ps {
		out = append(out, tasks.Instance{Index: i, Key: p.entry, Input: p.prompt})
	}
	return out, nil
}
func (c chain) Problem(inst tasks.Instance) tasks.CodeProblem {
	p := c.ps[inst.Index]
	return tasks.CodeProblem{ID: p.entry, Prompt: p.prompt, EntryPoint: p.entry, Language: "python"}
}
func (chain) Score(tasks.Instance, string) tasks.Score               { return tasks.Score{} }
func (chain) AnswerKey(_ tasks.Instance, o, _ string) (string, bool) { return o, true }
func (chain) VoteKeys() []string                                     { return []string{"exact"} }

// solveChain solves problems from..len-1 of the chain in order with one
// strategy (restored with the details of the problems before from), and
// returns every problem's first iteration.
func solveChain(t *testing.T, c chain, s Strategy, from int, before []CodeDetail) []CodeIteration {
	t.Helper()
	return solveChainOn(t, codeExec(t), c, s, from, before)
}

// solveChainOn is solveChain on the executor ex.
func solveChainOn(t *testing.T, ex tasks.Executor, c chain, s Strategy, from int, before []CodeDetail) []CodeIteration {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := c.Instances()
	var done []Solved
	for i, d := range before {
		blob, _ := json.Marshal(d)
		done = append(done, Solved{Instance: insts[i], Detail: blob})
	}
	if err := s.(Ordered).Restore(c, lib, done); err != nil {
		t.Fatal(err)
	}
	var out []CodeIteration
	for _, inst := range insts[from:] {
		p := c.ps[inst.Index]
		model := &codeScript{answers: map[string]string{"i0/tests": p.tests, "i0/impl": p.answer}}
		res, err := s.Solve(context.Background(), Env{Sampler: model, Task: c, Prompts: lib, Seed: 3, Exec: ex}, inst)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Detail.(CodeDetail).Iterations[0])
	}
	return out
}

// The shared namespace as the reference's executor keeps it: a later
// problem sees an earlier one's helper and import, a failing test's output
// comes from a second exec in the namespace the test left, and the
// isolated default sees none of it.
func TestReflexionCodeSharedNamespace(t *testing.T) {
	params := map[string]any{"max_iters": 1}
	shared := newStrategy(t, "reflexion_code", map[string]any{"max_iters": 1, "namespace": "shared"})
	if shared.(Ordered).InOrder() == "" || newStrategy(t, "reflexion_code", params).(Ordered).InOrder() != "" {
		t.Fatal("namespace=shared must ask for the items in order, and only it")
	}
	got := solveChain(t, chain{chainProblems}, shared, 0, nil)
	want := []string{
		"Tested passed:\nassert first(1) == 0\n\nTests failed:",
		"Tested passed:\nassert second(4) == 18\n\nTests failed:\nassert second(9) == 85 # output: 84",
		// third(0) runs in the test (n=1) and again in the output fetch
		// (n=2), so the next test sees n=3.
		"Tested passed:\nassert third(0) == 3\n\nTests failed:\nassert third(0) == 100 # output: 2",
		"Tested passed:\nassert fourth(0) == 3\n\nTests failed:",
	}
	for i, it := range got {
		if it.Feedback != want[i] {
			t.Errorf("shared, problem %d: feedback\n%s\nwant\n%s", i, it.Feedback, want[i])
		}
	}
	if !got[0].Passed || got[0].Failed != nil || !reflect.DeepEqual(got[1].Failed, []int{1}) || !reflect.DeepEqual(got[2].Failed, []int{0}) {
		t.Errorf("shared: failed %v %v %v", got[0].Failed, got[1].Failed, got[2].Failed)
	}

	iso := solveChain(t, chain{chainProblems}, newStrategy(t, "reflexion_code", params), 0, nil)
	wantIso := []string{
		"Tested passed:\nassert first(1) == 0\n\nTests failed:",
		"Tested passed:\n\nTests failed:\nassert second(4) == 18 # output: name '_sq' is not defined\nassert second(9) == 85 # output: name '_sq' is not defined",
		"Tested passed:\n\nTests failed:\nassert third(0) == 100 # output: name 'n' is not defined\nassert third(0) == 3 # output: name 'n' is not defined",
		"Tested passed:\n\nTests failed:\nassert fourth(0) == 3 # output: name 'n' is not defined",
	}
	for i, it := range iso {
		if it.Feedback != wantIso[i] || it.Failed != nil {
			t.Errorf("isolated, problem %d: feedback\n%s\nwant\n%s (failed %v)", i, it.Feedback, wantIso[i], it.Failed)
		}
	}
}

// A resumed run restores the namespace from the stored details: the last
// problem solved alone after a restore sees what it saw in one run (the
// count the third problem's tests and output fetch left).
func TestReflexionCodeSharedRestores(t *testing.T) {
	set := map[string]any{"max_iters": 1, "namespace": "shared"}
	whole := solveChain(t, chain{chainProblems}, newStrategy(t, "reflexion_code", set), 0, nil)
	last := len(whole) - 1
	var before []CodeDetail
	for i, it := range whole[:last] {
		d := CodeDetail{Version: CodeVersionLogged, Strategy: "reflexion", Tests: splitLines(chainProblems[i].tests),
			Iterations: []CodeIteration{it}, Evaluated: -1}
		if it.Passed {
			d.Evaluated = 0
		}
		before = append(before, d)
	}
	resumed := solveChain(t, chain{chainProblems}, newStrategy(t, "reflexion_code", set), last, before)
	if !reflect.DeepEqual(resumed[0], whole[last]) || !resumed[0].Passed {
		t.Errorf("resumed last problem %+v, in one run %+v", resumed[0], whole[last])
	}
}

// A problem whose implementation ends the process ended the reference's
// run; the problems after it go on in a fresh namespace (as the resumed
// run there), not failing every test behind it.
func TestReflexionCodeSharedSurvivesAnExit(t *testing.T) {
	c := chain{[]chainProblem{
		{"def first(x: int) -> int:\n    \"\"\"Return 0.\"\"\"\n", "first",
			"def first(x: int) -> int:\n    return 0\nhelper = 1\nimport os\nos._exit(0)", "assert first(1) == 0"},
		{"def second(x: int) -> int:\n    \"\"\"Return x.\"\"\"\n", "second",
			"    return x", "assert second(2) == 2\nassert helper == 1"},
	}}
	got := solveChain(t, c, newStrategy(t, "reflexion_code", map[string]any{"max_iters": 1, "namespace": "shared"}), 0, nil)
	want := []string{
		"Tested passed:\n\nTests failed:\nassert first(1) == 0 # output: ",
		"Tested passed:\nassert second(2) == 2\n\nTests failed:\nassert helper == 1 # output: name 'helper' is not defined",
	}
	for i, it := range got {
		if it.Feedback != want[i] {
			t.Errorf("problem %d: feedback\n%s\nwant\n%s", i, it.Feedback, want[i])
		}
	}
}
