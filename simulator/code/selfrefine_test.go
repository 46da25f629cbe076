package code

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	codetask "github.com/reasonbench/reasonbench/tasks/code"
)

// The responder recognises selfrefine_code's templates by their first
// sentences, in both code tasks.
func TestSelfRefineMarkersInTemplates(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"mbpp", "humaneval"} {
		for name, marker := range map[string]string{"init": MarkerSRInit, "feedback": MarkerSRFeedback, "refine": MarkerSRRefine} {
			if text, ok := lib.Text(task + "/selfrefine_code_" + name); !ok || !strings.HasPrefix(text, marker) {
				t.Errorf("%s/selfrefine_code_%s does not start with %q", task, name, marker)
			}
		}
	}
}

func srRespond(t *testing.T, params sim.Params, text string) string {
	t.Helper()
	c, ok := SelfRefineResponder{}.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}, rand.New(rand.NewPCG(1, 2)), params)
	if !ok {
		t.Fatalf("not answered: %q", text)
	}
	return c.Content
}

func TestSelfRefineResponder(t *testing.T) {
	exact := sim.Params{Skill: 1}
	first := srRespond(t, exact, MarkerSRInit+" ...\n\n"+rcPrompt)
	if !strings.HasPrefix(first, "```python\nfrom typing import List\n\ndef pick(xs: List[int], i: int) -> int:\n") ||
		!strings.Contains(first, "if _args == ([4, 5], 1,):\n        return 5") {
		t.Errorf("first %q", first)
	}
	passed := MarkerSRFeedback + " ...\n\nResults of the examples:\nExamples passed: 2 of 2.\nassert pick([4, 5], 1) == 5  # passed\n\nReview:"
	failed := MarkerSRFeedback + " ...\n\nResults of the examples:\nExamples passed: 1 of 2.\nassert pick([7], 0) == 7  # failed: returned 0\n\nReview:"
	if fb := srRespond(t, exact, passed); !strings.Contains(fb, "No change needed.") {
		t.Errorf("all passed: %q", fb)
	}
	if fb := srRespond(t, exact, failed); strings.Contains(fb, "No change needed") || !strings.Contains(fb, "assert pick([7], 0) == 7") {
		t.Errorf("one failed: %q", fb)
	}
	// Misjudge 1 turns every verdict around.
	if fb := srRespond(t, sim.Params{Skill: 1, Misjudge: 1}, passed); strings.Contains(fb, "No change needed") {
		t.Errorf("misjudged pass: %q", fb)
	}
	if fb := srRespond(t, sim.Params{Skill: 1, Misjudge: 1}, failed); !strings.Contains(fb, "No change needed") {
		t.Errorf("misjudged failure: %q", fb)
	}
	// The improved function learns the failing examples shown, not the
	// passing ones again, and writes the prompt's function (the last def).
	prompt := strings.ReplaceAll(rcPrompt, "    >>> pick([7], 0)\n    7\n", "")
	refine := MarkerSRRefine + " ...\nAttempt 1:\n```python\ndef pick(xs, i):\n    return 0\n```\nResults of the examples:\n" +
		"Examples passed: 0 of 1.\nassert pick([1, 2, 3], 2) == 3  # failed: returned 0\nassert pick([4, 5], 1) == 5  # passed\n" +
		"Review of attempt 1:\nWrong.\n\nThe function to write:\n" + prompt
	impl := srRespond(t, exact, refine)
	if !strings.Contains(impl, "def pick(xs: List[int], i: int) -> int:") || !strings.Contains(impl, "if _args == ([1, 2, 3], 2,):\n        return 3") ||
		strings.Count(impl, "if _args == ([4, 5], 1,)") != 1 {
		t.Errorf("improved %q", impl)
	}
	if _, ok := (SelfRefineResponder{}).Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: rcPrompt}}}, rand.New(rand.NewPCG(1, 2)), exact); ok {
		t.Error("answered a prompt without a marker")
	}
	for _, s := range []string{"", "def (", "Examples passed: 99999999999999999999 of 1.", strings.Repeat("assert f( # failed\n", 500)} {
		for _, m := range []string{MarkerSRInit, MarkerSRFeedback, MarkerSRRefine} {
			srRespond(t, sim.Params{Slip: 0.5, Misjudge: 0.5}, m+"\n"+s)
		}
	}
}

// TestSelfRefineOnHumanEval runs selfrefine protocol=code on the simulated
// coder in the sandbox: every item ends stopped by its feedback or at the
// limit, the calls and example runs match the iterations, and a function
// that passes its examples is never worse on them after refining.
func TestSelfRefineOnHumanEval(t *testing.T) {
	r := sandboxtest.Runner(t)
	model, err := sim.New(sim.DefaultParams(), SelfRefineResponder{})
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := prompts.Bundled()
	spec, _ := strategies.Lookup("selfrefine")
	v, err := param.Resolve(spec.Params, map[string]any{"protocol": "code", "iterations": 3})
	if err != nil {
		t.Fatal(err)
	}
	strat, _ := spec.New(v)
	task := codetask.NewHumanEval()
	insts, _ := task.Instances()
	for _, inst := range insts[:3] {
		ex := &countingExecutor{Executor: tasks.RunnerExecutor{Runner: r}}
		bound, failed := task.(tasks.Executed).WithExecutor(context.Background(), ex)
		env := strategies.Env{Sampler: llm.Chain(model, llm.Identify(5, 1)), Task: bound, Prompts: lib, Seed: 5, Exec: ex}
		res, err := strat.Solve(context.Background(), env, inst)
		if err != nil || failed() != nil {
			t.Fatal(err, failed())
		}
		d := res.Detail.(reading.SelfRefineDetail)
		n := len(d.Iterations)
		if n < 1 || n > 3 || (d.StoppedBy == "limit") != (n == 3 && !d.Iterations[n-1].Stop) {
			t.Errorf("%s: %d iterations, stopped by %s", inst.Key, n, d.StoppedBy)
		}
		// Per attempt: its examples and its hidden tests; then the final.
		if len(ex.sites) != 2*n+1 || ex.sites[0] != "i1/examples" || ex.sites[2*n] != "hidden" {
			t.Errorf("%s: sites %v", inst.Key, ex.sites)
		}
		for _, it := range d.Iterations {
			if it.Examples == "" || it.Program == "" {
				t.Errorf("%s: iteration %+v", inst.Key, it)
			}
		}
	}
}
