package game24

import (
	"context"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// TestStepsContinueOneAtATime: under stop "\n\n" each continuation is one
// step; at Skill 1 without slips the steps reach a right answer on a
// solvable puzzle, in the chat form and the completions form alike; a
// partial solution is replayed as written (a slipped result stays), and
// an answered one is not continued.
func TestStepsContinueOneAtATime(t *testing.T) {
	prompt := renderBundled(t, "steps", "4 5 6 10")
	for _, mk := range []string{markerSteps, markerTask, "\n" + headerSteps} {
		if !strings.Contains(prompt, mk) {
			t.Fatalf("game24/steps lacks the marker %q", mk)
		}
	}
	m := simModel(t, sim.Params{Skill: 1, Focus: 2})
	ask := func(partial string, flat bool, seed int64) string {
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
	for _, flat := range []bool{false, true} {
		partial := ""
		for i := 0; ; i++ {
			step := ask(partial, flat, int64(i))
			if step == "" {
				break
			}
			if strings.Contains(step, "\n") || i > 4 {
				t.Fatalf("flat=%v step %d %q: not one line", flat, i, step)
			}
			partial += step + "\n\n"
		}
		if steps := sim.Steps(partial); len(steps) != 4 {
			t.Errorf("flat=%v: %d steps %q, want 3 moves and an answer", flat, len(steps), partial)
		}
		if v := game24.Check([]int{4, 5, 6, 10}, partial); !v.Correct {
			t.Errorf("flat=%v: %q is not a solution at Skill 1: %s", flat, partial, v.Reason)
		}
	}
	// 4 + 5 written as 10: the model goes on from 6 10 10, not 6 9 10.
	next := ask("4 + 5 = 10 (left: 6 10 10)\n\n", false, 3)
	st, err := game24.ParseStep(next)
	if err != nil {
		t.Fatalf("next step %q: %v", next, err)
	}
	left := map[string]int{"6": 1, "10": 2}
	left[game24.FormatNumber(st.A)]--
	left[game24.FormatNumber(st.B)]--
	left[game24.FormatNumber(st.Result)]++
	var want []string
	for _, n := range []string{"6", "10", game24.FormatNumber(st.Result)} {
		if left[n] < 0 {
			t.Fatalf("next step %q uses a number not left of 6 10 10", next)
		}
		for ; left[n] > 0; left[n]-- {
			want = append(want, n)
		}
	}
	var got []string
	for _, r := range st.Left {
		got = append(got, game24.FormatNumber(r))
	}
	if !sameNumbers(got, want) {
		t.Errorf("next step %q leaves %v, want %v", next, got, want)
	}
	if got := ask("4 + 5 = 9 (left: 6 9 10)\n\nAnswer: (4 + 5) * 6 - 10 * 3 = 24\n\n", false, 1); got != "" {
		t.Errorf("an answered solution continued with %q", got)
	}
}

func sameNumbers(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
