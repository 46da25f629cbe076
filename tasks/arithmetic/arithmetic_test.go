package arithmetic

import (
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

func TestTheReferenceQuestions(t *testing.T) {
	task := NewTask()
	insts, err := task.Instances()
	if err != nil || len(insts) != Questions {
		t.Fatalf("%d questions: %v", len(insts), err)
	}
	// numpy: np.random.seed(0); np.random.randint(0, 30, size=6), twice.
	for i, want := range []struct{ input, gold string }{{"12+15*21+0-3*27", "246"}, {"3+7*9+19-21*18", "-293"}} {
		if insts[i].Input != want.input || insts[i].Data.(qa.Row).Answers[0] != want.gold {
			t.Errorf("question %d: %q gold %v, want %q = %s", i, insts[i].Input, insts[i].Data.(qa.Row).Answers, want.input, want.gold)
		}
	}
	if got := tasks.RuleName(task); got != "arithmetic/numeric" {
		t.Errorf("default rule %s", got)
	}
	paper, err := task.(tasks.RuleChooser).WithRule(qa.ScorerDebateArithmetic)
	if err != nil {
		t.Fatal(err)
	}
	if sc := paper.Score(insts[0], "I think the answer is 246"); !sc.Correct {
		t.Errorf("the paper rule: %+v", sc)
	}
}
