package gsm8k

import (
	"math/big"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// goldNumber reads a solution's own "#### N" line, independently of the
// scorer: the text after "####", commas removed.
func goldNumber(t *testing.T, solution string) *big.Rat {
	t.Helper()
	_, after, ok := strings.Cut(solution, "####")
	if !ok {
		t.Fatalf("no #### in %q", solution)
	}
	v, ok := new(big.Rat).SetString(strings.ReplaceAll(strings.TrimSpace(after), ",", ""))
	if !ok {
		t.Fatalf("#### %q is not a number", after)
	}
	return v
}

func TestEmbeddedData(t *testing.T) {
	task := NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != NumProblems || task.Name() != "gsm8k" || tasks.RuleName(task) != "gsm8k/numeric" {
		t.Fatalf("%d problems, name %s, rule %s", len(insts), task.Name(), tasks.RuleName(task))
	}
	d := task.(tasks.DataSource).Dataset()
	if d.Rows != NumProblems || d.SHA256 != tasks.SHA256(testJSONL) || d.Path != "" {
		t.Errorf("dataset %+v", d)
	}
	if _, err := task.(tasks.RuleChooser).WithRule("exact"); err == nil {
		t.Error("gsm8k accepted another scorer")
	}
}

// TestNumericScorerAgreesWithGold scores every gold solution against
// itself and checks the scorer reads the solution's own "#### N".
func TestNumericScorerAgreesWithGold(t *testing.T) {
	task := NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := qa.NewScorer(qa.ScorerNumeric, qa.ScorerOptions{})
	commas := 0
	for _, inst := range insts {
		sol := inst.Gold
		want := goldNumber(t, sol)
		if strings.Contains(sol[strings.LastIndex(sol, "####"):], ",") {
			commas++
		}
		s := task.Score(inst, sol)
		if !s.Correct {
			t.Errorf("problem %d: its own solution scored wrong: %+v", inst.Index, s)
			continue
		}
		ans, _ := sc.Answer(sol)
		got, _ := new(big.Rat).SetString(strings.ReplaceAll(ans, ",", ""))
		if got == nil || got.Cmp(want) != 0 {
			t.Errorf("problem %d: the scorer reads %q, the solution says %s", inst.Index, ans, want.RatString())
		}
		// And a different number is wrong.
		wrong := new(big.Rat).Add(want, big.NewRat(1, 1))
		if task.Score(inst, "Answer: "+wrong.RatString()).Correct {
			t.Errorf("problem %d: %s scored correct", inst.Index, wrong.RatString())
		}
	}
	t.Logf("%d solutions checked; %d write N with thousands separators", len(insts), commas)
}

func TestScoreRecordFindsGoldByQuestion(t *testing.T) {
	task := NewTask().(tasks.RecordScorer)
	rows, _ := Rows()
	want := goldNumber(t, rows[3].Answers[0]).RatString()
	sc, err := task.ScoreRecord(map[string]any{"question": "  " + rows[3].Question + " ", "output": "So he runs it.\nAnswer: " + want})
	if err != nil || !sc.Correct {
		t.Errorf("%+v %v", sc, err)
	}
	if _, err := task.ScoreRecord(map[string]any{"question": "Not a GSM8K problem?", "output": "Answer: 1"}); err == nil {
		t.Error("an unknown question without an answer was scored")
	}
}
