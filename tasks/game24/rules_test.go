package game24

import (
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

// The paper rule reproduces every reward the ToT paper's scorer recorded.
func TestPaperRulePublishedRewards(t *testing.T) {
	pub := loadPublished(t)
	if len(pub) != 4100 {
		t.Fatalf("%d published outputs, want 4100", len(pub))
	}
	task, err := NewTask().WithRule(RulePaper)
	if err != nil {
		t.Fatal(err)
	}
	rs := task.(tasks.RecordScorer)
	agree, correct := 0, 0
	for i, p := range pub {
		s, err := rs.ScoreRecord(map[string]any{"puzzle": p.Puzzle, "output": p.Output})
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if s.Correct == (p.Reward == 1) {
			agree++
		} else {
			t.Errorf("line %d (%s, puzzle %s): paper rule says %v (%s), recorded reward %d: %q", i+1, p.Method, p.Puzzle, s.Correct, s.Reason, p.Reward, p.Output)
		}
		if s.Correct {
			correct++
		}
	}
	t.Logf("paper rule agrees with %d of %d published rewards (%d correct)", agree, len(pub), correct)
}

func TestPaperRule(t *testing.T) {
	for _, c := range []struct {
		out  string
		want bool
	}{
		{"Answer: (10 - 6) * (5 + 4) = 24", false},
		{"(6 - 4) * (10 + 5 - 3) = 24", false},
		{"steps...\n4 * (10 - 6) + 5 + 3 = 24", false},
		{"steps\n(10 - 4) * (6 - 5) * 4 = 24\n", false},
		{"x\nAnswer: 4 * 5 + 10 - 6 = 24\n", true},
		{"x\n4 * 5 + 10 - 6 = 24", true},              // no prefix: the paper accepts it
		{"Answer: 4 * 5 + 10 - 6 = 24\nDone.", false}, // not the last line
		{"ANSWER: 4*5+10-6", true},
		{"", false},
		{"Answer: 4 * 5 + 10 - 6 / 0 = 24", false},
	} {
		if got := CheckPaper("4 5 6 10", c.out).Correct; got != c.want {
			t.Errorf("CheckPaper(%q) = %v, want %v", c.out, got, c.want)
		}
	}
	if r := tasks.RuleName(NewTask()); r != "game24/strict" {
		t.Errorf("default rule %q", r)
	}
	if _, err := NewTask().WithRule("nope"); err == nil {
		t.Error("unknown rule accepted")
	}
}

// FuzzCheckPaper: the paper rule never panics, and a correct verdict means
// the expression really is 24 over the puzzle's digit runs.
func FuzzCheckPaper(f *testing.F) {
	outputs, _, _ := publishedSeeds(f)
	for _, o := range outputs {
		f.Add(o[0], o[1])
	}
	f.Add("4 5 6 10", "x\n4 * 5 + 10 - 6 = 24")
	f.Fuzz(func(t *testing.T, puzzle, output string) {
		v := CheckPaper(puzzle, output)
		if !v.Correct {
			return
		}
		e, err := ParseExpr(v.Expression)
		if err != nil || e.Value().Cmp(rat24) != 0 {
			t.Fatalf("CheckPaper(%q, %q) correct but expression %q is not 24 (%v)", puzzle, output, v.Expression, err)
		}
	})
}

// Fuzz the reference wrappers: they read model text back into prompts.
func FuzzReferenceValue(f *testing.F) {
	f.Add("4 + 5 = 9 (left: 6 9 10)\n", "x\nsure")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, y, out string) {
		if v := NewTask().ReferenceValue(tasks.Instance{}, y, []string{out, out, out}); v < 0 || v > 60 {
			t.Fatalf("value %v out of range", v)
		}
		_ = referenceNumbers(y)
	})
}
