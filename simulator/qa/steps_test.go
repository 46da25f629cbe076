package qa

import (
	"context"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

const stepsProblem = "Janet has 16 apples. She gives 3 apples to each of her 2 friends. How many apples does she have left?"

func stepsPrompt(t *testing.T) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	text, err := lib.Render("gsm8k/steps", promptData{Input: stepsProblem})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{markerQA, markerSteps, "\n" + headerSteps} {
		if !strings.Contains(text, m) {
			t.Fatalf("gsm8k/steps lacks the marker %q", m)
		}
	}
	return text
}

// continueOnce asks for one step after partial, in the chat form
// (assistant turn) or the completions form (after the header in the
// prompt).
func continueOnce(t *testing.T, m *sim.Model, prompt, partial string, flat bool, seed int64) string {
	t.Helper()
	msgs := []llm.Message{{Role: "user", Content: prompt}}
	if partial != "" {
		if flat {
			msgs[0].Content = strings.TrimRight(prompt, "\n") + "\n" + partial
		} else {
			msgs = append(msgs, llm.Message{Role: "assistant", Content: partial})
		}
	}
	resp, err := m.Sample(context.Background(), llm.Request{Messages: msgs, Stop: []string{"\n\n"}, Temperature: llm.Temp(0.7), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Choices[0].Content
}

// TestStepsContinueOneAtATime: step by step under stop "\n\n" the
// simulated model writes, at Skill 1 without slips, the same solution as in
// one go, in either request form, ending in \boxed{} with its considered
// answer; a partial solution is read back as written, and a solution that
// answered is not continued.
func TestStepsContinueOneAtATime(t *testing.T) {
	prompt := stepsPrompt(t)
	m, err := sim.New(sim.Params{Skill: 1, Focus: 2}, Responder{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, Temperature: llm.Temp(0.7)})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ConsideredAnswer(stepsProblem)
	if !strings.HasSuffix(whole.Choices[0].Content, `\boxed{`+want+`}.`) {
		t.Fatalf("whole solution %q does not end in \\boxed{%s}", whole.Choices[0].Content, want)
	}
	for _, flat := range []bool{false, true} {
		partial := ""
		for i := 0; ; i++ {
			step := continueOnce(t, m, prompt, partial, flat, int64(i))
			if step == "" {
				break
			}
			if strings.Contains(step, "\n\n") || i > 10 {
				t.Fatalf("step %d %q: not one step", i, step)
			}
			partial += step + "\n\n"
		}
		if got := strings.TrimSpace(partial); got != whole.Choices[0].Content {
			t.Errorf("flat=%v: step by step %q, in one go %q", flat, got, whole.Choices[0].Content)
		}
	}
	// A wrong partial result is carried on: 16 - 6 written as 11.
	next := continueOnce(t, m, prompt, "3 × 2 = 6\n\n16 - 6 = 11\n\n", false, 1)
	if !strings.Contains(next, "11") {
		t.Errorf("after a slipped 11 the model wrote %q", next)
	}
	if got := continueOnce(t, m, prompt, "16 - 6 = 10\n\nThe answer is \\boxed{10}.\n\n", false, 1); got != "" {
		t.Errorf("an answered solution continued with %q", got)
	}
}
