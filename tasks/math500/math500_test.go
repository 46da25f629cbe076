package math500

import (
	"errors"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

func TestEmbeddedData(t *testing.T) {
	task := NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != NumProblems || task.Name() != Name || tasks.RuleName(task) != "math500/math" {
		t.Fatalf("%d problems, name %s, rule %s", len(insts), task.Name(), tasks.RuleName(task))
	}
	d := task.(tasks.DataSource).Dataset()
	if d.Rows != NumProblems || d.SHA256 != tasks.SHA256(testJSONL) || !strings.HasPrefix(d.SHA256, "sha256:35dc4108") {
		t.Errorf("dataset %+v", d)
	}
	lab := task.(tasks.Labeled)
	levels := map[string]int{}
	for _, inst := range insts {
		l := lab.Labels(inst)
		levels[l["level"]]++
		if l["subject"] == "" {
			t.Fatalf("item %d has no subject", inst.Index)
		}
	}
	if len(levels) != 5 || strings.Join(lab.LabelKeys(), ",") != "level,subject" {
		t.Errorf("levels %v, keys %v", levels, lab.LabelKeys())
	}
	if l := lab.Labels(insts[0]); l["level"] != "2" || l["subject"] != "Precalculus" {
		t.Errorf("item 0 labels %v", l)
	}
}

// TestGoldSolutionsScoreCorrect scores each problem's own worked solution
// (its last \boxed{} is the answer, written independently of the answer
// field) under both rules: the full rule must accept every one; the count
// the string rule accepts is reported, and a wrong answer is refused.
func TestGoldSolutionsScoreCorrect(t *testing.T) {
	task := NewTask()
	insts, _ := task.Instances()
	hend, err := task.(tasks.RuleChooser).WithRule("hendrycks")
	if err != nil {
		t.Fatal(err)
	}
	if tasks.RuleName(hend) != "math500/math(hendrycks)" {
		t.Errorf("rule %s", tasks.RuleName(hend))
	}
	if _, ok := hend.(tasks.Labeled); !ok {
		t.Error("the task under another rule lost its labels")
	}
	ps, _ := Problems()
	hendOK := 0
	for i, inst := range insts {
		sol := ps[i].Solution
		if s := task.Score(inst, sol); !s.Correct {
			t.Errorf("problem %d: its own solution is wrong under math: boxed %q, answer %q (%s)", i, s.Answer, ps[i].Answer, s.Reason)
		}
		if hend.Score(inst, sol).Correct {
			hendOK++
		}
		if s := task.Score(inst, "\\boxed{"+ps[i].Answer+"+1}"); s.Correct {
			t.Errorf("problem %d: answer+1 scored correct (%q)", i, ps[i].Answer)
		}
	}
	t.Logf("the hendrycks rule accepts %d of 500 gold solutions", hendOK)
	if hendOK < 450 {
		t.Errorf("hendrycks accepts only %d gold solutions", hendOK)
	}
}

func TestScoreRecordByIdx(t *testing.T) {
	task := NewTask().(*Task)
	ps, _ := Problems()
	s, err := task.ScoreRecord(map[string]any{"idx": float64(0), "output": "\\boxed{" + ps[0].Answer + "}"})
	if err != nil || !s.Correct {
		t.Fatalf("%+v %v", s, err)
	}
	if s, _ := task.ScoreRecord(map[string]any{"idx": float64(1), "output": "\\boxed{" + ps[0].Answer + "}"}); s.Correct {
		t.Error("problem 0's answer scored correct for problem 1")
	}
	for _, bad := range []any{float64(500), float64(-1), 1.5, "3"} {
		if _, err := task.ScoreRecord(map[string]any{"idx": bad, "output": "x"}); err == nil {
			t.Errorf("idx %v accepted", bad)
		}
	}
}

// TestRules: the three rules by their names and short names, each
// recorded; strict refuses an unboxed answer the full rule takes as its
// fallback; an unknown rule is refused; labels of an index out of range
// are none.
func TestRules(t *testing.T) {
	task := NewTask().(*Task)
	if got := strings.Join(task.Rules(), ","); got != "math,math:strict,math:hendrycks" {
		t.Errorf("rules %s", got)
	}
	insts, _ := task.Instances()
	ps, _ := Problems()
	unboxed := "Working it out, the answer comes to $" + ps[0].Answer + "$"
	for name, want := range map[string]string{"full": "math500/math", "math": "math500/math", "strict": "math500/math(strict)",
		"math:strict": "math500/math(strict)", "hendrycks": "math500/math(hendrycks)", "math:hendrycks": "math500/math(hendrycks)"} {
		r, err := task.WithRule(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tasks.RuleName(r) != want {
			t.Errorf("%s: rule %s, want %s", name, tasks.RuleName(r), want)
		}
		s := r.Score(insts[0], unboxed)
		if wantOK := want == "math500/math"; s.Correct != wantOK {
			t.Errorf("%s: unboxed %q scored %+v, want correct=%v", name, unboxed, s, wantOK)
		}
	}
	if _, err := task.WithRule("sympy"); err == nil {
		t.Error("an unknown rule was accepted")
	}
	if l := task.Labels(tasks.Instance{Index: NumProblems}); l != nil {
		t.Errorf("labels of an index past the end: %v", l)
	}
}

// TestBroken: unreadable data is a task that says why everywhere.
func TestBroken(t *testing.T) {
	b := broken{errors.New("no data")}
	if _, err := b.Instances(); err == nil || b.Name() != Name {
		t.Error("a broken task gave instances")
	}
	if s := b.Score(tasks.Instance{}, "\\boxed{1}"); s.Correct || s.Reason != "no data" {
		t.Errorf("broken score %+v", s)
	}
	if _, ok := b.AnswerKey(tasks.Instance{}, "\\boxed{1}", b.VoteKeys()[0]); ok {
		t.Error("a broken task keyed a vote")
	}
}
