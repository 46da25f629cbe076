package qa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file of MATH answers: numeric refuses it (an answer with no number),
// math scores it by value, math:hendrycks by the original string rule.
func TestMathScorerOnAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	data := `{"question": "Polar coordinates of (0,3)?", "answer": "\\left( 3, \\frac{\\pi}{2} \\right)"}
{"question": "Half of one?", "answer": "\\frac{1}{2}"}
{"question": "A set?", "answer": "\\{1, 2\\}"}
{"question": "Solve x^2 = 4", "answer": "\\pm 2"}
{"question": "Who ran fastest?", "answer": "\\text{Devon}"}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewFileTask(d, "numeric"); err == nil || !strings.Contains(err.Error(), "has no number") {
		t.Fatalf("numeric accepted a file of MATH answers: %v", err)
	}
	full, err := NewFileTask(d, "math")
	if err != nil {
		t.Fatal(err)
	}
	hend, err := NewFileTask(d, "math:hendrycks")
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := full.Instances()
	for _, c := range []struct {
		item       int
		output     string
		full, hend bool
	}{
		{0, "So the point is $\\boxed{(3, \\frac{\\pi}{2})}$.", true, true},
		{0, "\\boxed{(3, \\frac{\\pi}{3})}", false, false},
		{1, "\\boxed{0.5}", true, true}, // hendrycks' one decimal case
		{1, "\\boxed{\\frac{2}{4}}", true, false},
		{1, "The answer is 1/2", true, false}, // the original extraction has no fall-back
		{2, "\\boxed{\\{2, 1\\}}", true, false},
		{3, "\\boxed{2, -2}", true, false},
		{3, "\\boxed{2}", false, false},
		{1, "no boxed answer", false, false},
		{4, "\\boxed{\\text{Devon}}", true, true},
		{4, "\\boxed{Devon}", true, false},
	} {
		inst := insts[c.item]
		if got := full.Score(inst, c.output); got.Correct != c.full {
			t.Errorf("math: item %d %q: %+v, want correct=%v", c.item, c.output, got, c.full)
		}
		if got := hend.Score(inst, c.output); got.Correct != c.hend {
			t.Errorf("math:hendrycks: item %d %q: %+v, want correct=%v", c.item, c.output, got, c.hend)
		}
	}
	for task, rule := range map[*Task]string{full.(*Task): "file/math", hend.(*Task): "file/math(hendrycks)"} {
		if name, _, _ := strings.Cut(task.ScoringRule(), ": "); name != rule {
			t.Errorf("rule %q, want %q", name, rule)
		}
	}
	// Votes: \frac12, 0.5 and \dfrac{1}{2} are one answer.
	var keys []string
	for _, out := range []string{"\\boxed{\\frac12}", "\\boxed{0.5}", "\\boxed{\\dfrac{1}{2}}"} {
		k, ok := full.AnswerKey(insts[1], out, VoteAnswer)
		if !ok {
			t.Fatalf("no key for %q", out)
		}
		keys = append(keys, k)
	}
	if keys[0] != keys[1] || keys[1] != keys[2] {
		t.Errorf("keys %q", keys)
	}
	// bench score lines may name the row by idx.
	if sc, err := full.(*Task).ScoreRecord(map[string]any{"idx": 1.0, "output": "\\boxed{0.5}", "verifier_score": 0.3}); err != nil || !sc.Correct {
		t.Errorf("idx 1: %+v %v", sc, err)
	}
	if sc, err := full.(*Task).ScoreRecord(map[string]any{"idx": 0.0, "output": "\\boxed{0.5}"}); err != nil || sc.Correct {
		t.Errorf("idx 0 is another row: %+v %v", sc, err)
	}
	if _, err := full.(*Task).ScoreRecord(map[string]any{"idx": 9.0, "output": "\\boxed{0.5}"}); err == nil {
		t.Error("idx 9 of 5 rows accepted")
	}
	if _, err := NewScorer("math:sympy", ScorerOptions{}); err == nil {
		t.Error("an unknown variant was accepted")
	}
}

// A gold answer that is a whole worked solution is read by its last box.
func TestMathScorerGoldSolution(t *testing.T) {
	s := mustScorer(t, "math", ScorerOptions{})
	row := Row{Answers: []string{"We compute ... so the answer is $\\boxed{\\frac{3}{8}}$."}}
	if !s.Score(row, "0.375").Correct || s.Score(row, "\\frac{3}{4}").Correct {
		t.Error("a worked gold solution is not read by its box")
	}
}

func TestMathScorerEnormousOutput(t *testing.T) {
	big := strings.Repeat("Step: 12 \\times 3 = 36, so {\\frac{1}{2}} is \\boxed{7}? ", 200000) + "\nSo \\boxed{18}"
	row := Row{Question: "q", Answers: []string{"18"}}
	for _, name := range []string{"math", "math:hendrycks"} {
		if sc := scoreOutput(mustScorer(t, name, ScorerOptions{}), row, big); !sc.Correct {
			t.Errorf("%s: the last box is 18: %+v", name, sc)
		}
	}
}

// The full math rule falls back to a final answer an output does not box
// and records that it did; math:strict requires the box.
func TestMathFallbackAndStrict(t *testing.T) {
	full := mustScorer(t, "math", ScorerOptions{})
	strict := mustScorer(t, "math:strict", ScorerOptions{})
	row := Row{Question: "q", Answers: []string{"-5"}}
	for _, c := range []struct {
		output            string
		full, strict      bool
		answer, strictWhy string
	}{
		{"Adding up, the total is -5", true, false, "-5" + FallbackNote, "no answer found"},
		{"So we get $x = -5$", true, false, "x = -5" + FallbackNote, "no answer found"},
		{"So \\boxed{-5}", true, true, "-5", ""},
		{"The answer is -5.", true, false, "-5", "no answer found"},
		{"It was the -5th", false, false, "", "no answer found"},
	} {
		got := scoreOutput(full, row, c.output)
		if got.Correct != c.full || got.Answer != c.answer {
			t.Errorf("math: %q: %+v, want correct=%v answer %q", c.output, got, c.full, c.answer)
		}
		if got := scoreOutput(strict, row, c.output); got.Correct != c.strict || got.Reason != c.strictWhy {
			t.Errorf("math:strict: %q: %+v, want correct=%v reason %q", c.output, got, c.strict, c.strictWhy)
		}
	}
	if full.Name() != "math" || strict.Name() != "math(strict)" || !strings.Contains(strict.Describe(), "required") {
		t.Errorf("names %q %q: %s", full.Name(), strict.Name(), strict.Describe())
	}
}
