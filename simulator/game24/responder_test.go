package game24

import (
	"context"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

func simModel(t *testing.T, p sim.Params) *sim.Model {
	t.Helper()
	m, err := sim.New(p, NewResponder())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func renderBundled(t *testing.T, name, input string) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Render("game24/"+name, struct{ Input string }{input})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sampleAccuracy samples n answers to the bundled prompt for each puzzle and
// returns the fraction the scorer accepts.
func sampleAccuracy(t *testing.T, m *sim.Model, prompt string, puzzles []game24.Puzzle, n int) float64 {
	t.Helper()
	correct, total := 0, 0
	for _, p := range puzzles {
		resp, err := m.Sample(context.Background(), llm.Request{
			Messages: []llm.Message{{Role: "user", Content: renderBundled(t, prompt, p.Text())}}, N: n, Temperature: llm.Temp(0.7), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range resp.Choices {
			if c.Content == sim.Fallback {
				t.Fatalf("%s prompt not recognised by the simulator", prompt)
			}
			total++
			if game24.Check(p.Numbers, c.Content).Correct {
				correct++
			}
		}
	}
	return float64(correct) / float64(total)
}

func TestSimAnswersBundledPrompts(t *testing.T) {
	all, err := game24.Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	hard := all[900:920]
	for _, prompt := range []string{"io", "cot"} {
		perfect := sampleAccuracy(t, simModel(t, sim.Params{Skill: 1}), prompt, hard, 5)
		if perfect != 1 {
			t.Errorf("%s: skill 1, slip 0: accuracy %.3f, want 1 (the solver finds every solution)", prompt, perfect)
		}
		hopeless := sampleAccuracy(t, simModel(t, sim.Params{Skill: 1, Slip: 1}), prompt, hard, 5)
		// With every step's result off, 24 is only hit when the wrong path
		// happens to make 24 exactly: rare, but honest.
		if hopeless > 0.1 {
			t.Errorf("%s: slip 1: accuracy %.3f, want near 0 (every step is wrong)", prompt, hopeless)
		}
		mid := sampleAccuracy(t, simModel(t, sim.DefaultParams()), prompt, hard, 20)
		low := sampleAccuracy(t, simModel(t, sim.Params{Skill: 0, Slip: 0.1}), prompt, hard, 20)
		if !(low < mid && mid < 1) {
			t.Errorf("%s: accuracy should rise with skill: skill 0 %.3f, default %.3f", prompt, low, mid)
		}
	}
}

func TestSimCoTWritesParseableSteps(t *testing.T) {
	m := simModel(t, sim.Params{Skill: 0.5, Slip: 0.3})
	resp, err := m.Sample(context.Background(), llm.Request{
		Messages: []llm.Message{{Role: "user", Content: renderBundled(t, "cot", "4 5 6 10")}}, N: 30, Temperature: llm.Temp(0.7)})
	if err != nil {
		t.Fatal(err)
	}
	slips := 0
	for _, c := range resp.Choices {
		lines := strings.Split(c.Content, "\n")
		if lines[0] != "Steps:" || len(lines) != 5 || !strings.HasPrefix(lines[4], "Answer: ") {
			t.Fatalf("unexpected CoT layout:\n%s", c.Content)
		}
		state := game24.Rats([]int{4, 5, 6, 10})
		for _, l := range lines[1:4] {
			st, err := game24.ParseStep(l)
			if err != nil {
				t.Fatalf("step %q: %v", l, err)
			}
			next, err := game24.Apply(state, st)
			if err != nil {
				slips++
				break
			}
			state = next
		}
	}
	if slips == 0 {
		t.Error("slip 0.3 over 30 samples produced no detectable arithmetic mistake")
	}
}

func TestSimIsDeterministicPerSeed(t *testing.T) {
	m := simModel(t, sim.DefaultParams())
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: renderBundled(t, "cot", "1 4 8 8")}}, N: 8, Temperature: llm.Temp(0.7), Seed: 42}
	a, _ := m.Sample(context.Background(), req)
	b, _ := m.Sample(context.Background(), req)
	for i := range a.Choices {
		if a.Choices[i].Content != b.Choices[i].Content {
			t.Fatal("same request, different answers")
		}
	}
	// Choice i of a request with seed s is the single choice of seed s+i.
	for i := range a.Choices {
		one := req
		one.N, one.Seed = 1, req.Seed+int64(i)
		c, _ := m.Sample(context.Background(), one)
		if c.Choices[0].Content != a.Choices[i].Content {
			t.Errorf("choice %d differs from the single request with seed %d", i, one.Seed)
		}
	}
}
