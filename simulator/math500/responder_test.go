package math500

import (
	"context"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	task "github.com/reasonbench/reasonbench/tasks/math500"
)

func render(t *testing.T, name, problem string) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	text, err := lib.Render(name, struct{ Input string }{problem})
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func ask(t *testing.T, p sim.Params, req llm.Request) []string {
	t.Helper()
	m, err := sim.New(p, Responder{})
	if err != nil {
		t.Fatal(err)
	}
	if req.Temperature == nil {
		req.Temperature = llm.Temp(0.7)
	}
	resp, err := m.Sample(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Texts()
}

func user(text string) []llm.Message { return []llm.Message{{Role: "user", Content: text}} }

func TestTemplatesCarryMarkers(t *testing.T) {
	for name, marks := range map[string][]string{
		"math500/io":  {markerTask, markerIO, markerProb},
		"math500/cot": {markerTask, markerCoT, markerProb},
	} {
		text := render(t, name, "X")
		for _, m := range marks {
			if !strings.Contains(text, m) {
				t.Errorf("%s lacks %q", name, m)
			}
		}
	}
}

func TestArithmeticSkill(t *testing.T) {
	cot := render(t, "math500/cot", "Compute $\\dbinom{10}{5}$.")
	sure := sim.Params{Skill: 1, Focus: 2}
	for _, out := range ask(t, sure, llm.Request{Messages: user(cot), N: 4, Seed: 1}) {
		steps := strings.Split(out, StepSep)
		if len(steps) != 3 || !strings.Contains(steps[2], "\\boxed{252}") {
			t.Errorf("skill 1: %q", out)
		}
	}
	// Without skill it guesses among the problem's quantities: 10, 5, 252
	// is not among them unless evaluated (and it evaluates segments as
	// candidates, so 252 may be drawn; what it never does is write steps of
	// the calculation).
	for _, out := range ask(t, sim.Params{Skill: 0, Focus: 2}, llm.Request{Messages: user(cot), N: 8, Seed: 1}) {
		if strings.Contains(out, "Carrying out") {
			t.Errorf("skill 0 calculated: %q", out)
		}
	}
	// Slip 1: always off by one.
	for _, out := range ask(t, sim.Params{Skill: 1, Slip: 1}, llm.Request{Messages: user(cot), N: 4, Seed: 1}) {
		if !strings.Contains(out, "\\boxed{251}") && !strings.Contains(out, "\\boxed{253}") {
			t.Errorf("slip 1: %q", out)
		}
	}
	io := render(t, "math500/io", "What is $\\frac{1}{2}+\\frac{1}{3}$?")
	if out := ask(t, sure, llm.Request{Messages: user(io), Seed: 3}); out[0] != "\\boxed{\\frac{5}{6}}" {
		t.Errorf("io: %q", out)
	}
}

// TestContinuation: a partial assistant solution gets only its next steps;
// stop "\n\n" makes that one step; a stated result carries on; a finished
// solution gets nothing.
func TestContinuation(t *testing.T) {
	cot := render(t, "math500/cot", "Compute $3 \\cdot 7$.")
	sure := sim.Params{Skill: 1}
	full := ask(t, sure, llm.Request{Messages: user(cot), Seed: 5})[0]
	steps := strings.Split(full, StepSep)
	cont := func(partial string, stop []string) string {
		msgs := append(user(cot), llm.Message{Role: "assistant", Content: partial})
		return ask(t, sure, llm.Request{Messages: msgs, Seed: 9, Stop: stop})[0]
	}
	if got := cont(steps[0]+StepSep, []string{StepSep}); got != steps[1] {
		t.Errorf("one step after %q: %q, want %q", steps[0], got, steps[1])
	}
	if got := cont(steps[0], nil); got != strings.Join(steps[1:], StepSep) {
		t.Errorf("the rest: %q", got)
	}
	if got := cont("We start.\n\nCombining them as the problem describes gives $17$.", nil); got != "The answer is $\\boxed{17}$." {
		t.Errorf("a stated result: %q", got)
	}
	if got := cont(full, nil); got != "" {
		t.Errorf("after the box: %q", got)
	}
}

func TestHostilePrompts(t *testing.T) {
	for _, problem := range []string{"", "$", "$$$$", strings.Repeat("$x^", 20000), strings.Repeat("Compute $9^{9^{9}}$ ", 500),
		"Compute $" + strings.Repeat("(", 3000) + "1$", "\x00\xff"} {
		for _, name := range []string{"math500/cot", "math500/io"} {
			out := ask(t, sim.DefaultParams(), llm.Request{Messages: user(render(t, name, problem)), Seed: 1})
			if !strings.Contains(out[0], "\\boxed{") {
				t.Errorf("%s %.30q: %q", name, problem, out[0])
			}
		}
	}
}

// TestSimulatedAccuracy measures the declared simulated solver on all of
// MATH-500 (one CoT sample each, scored by the task's math rule): low,
// since its only skill is arithmetic, and higher with more skill. The
// figures are logged, never targeted.
func TestSimulatedAccuracy(t *testing.T) {
	tk := task.NewTask()
	insts, err := tk.Instances()
	if err != nil {
		t.Fatal(err)
	}
	acc := func(p sim.Params) int {
		right := 0
		for _, inst := range insts {
			out := ask(t, p, llm.Request{Messages: user(render(t, "math500/cot", inst.Input)), Seed: int64(inst.Index)})
			if tk.Score(inst, out[0]).Correct {
				right++
			}
		}
		return right
	}
	def := acc(sim.DefaultParams())
	sure := acc(sim.Params{Skill: 1, Focus: 2})
	none := acc(sim.Params{Skill: 0, Focus: 2})
	t.Logf("simulated MATH-500 accuracy, one CoT sample: skill 0 %d/500, default %d/500, skill 1 slip 0 %d/500", none, def, sure)
	if !(none <= def && def <= sure) || sure == none {
		t.Errorf("accuracy does not grow with skill: %d, %d, %d", none, def, sure)
	}
}
