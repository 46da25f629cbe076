package gsm8k

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

func TestDebateTaskIsTheReferenceOrder(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	task := NewDebateTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != NumProblems || task.Name() != DebateName {
		t.Fatalf("%s has %d problems", task.Name(), len(insts))
	}
	// python3: random.seed(0); x = list(range(1319)); random.shuffle(x); x[:3]
	for i, file := range []int{1101, 120, 474} {
		r := insts[i].Data.(qa.Row)
		if r.Line != file+1 || insts[i].Input != rows[file].Question || insts[i].Index != i {
			t.Errorf("position %d: line %d %q, want the file's line %d", i, r.Line, insts[i].Input, file+1)
		}
	}
	if got := tasks.RuleName(task); got != "gsm8k/numeric" {
		t.Errorf("default rule %s", got)
	}
	paper, err := task.(tasks.RuleChooser).WithRule(qa.ScorerDebatePaper)
	if err != nil || tasks.RuleName(paper) != "gsm8k/debate-paper" {
		t.Fatalf("paper rule: %v %v", err, tasks.RuleName(paper))
	}
}

// The reference's own reading of the file, by python3 when the machine
// has it: its first 100 questions, in order, are ours.
func TestDebateOrderMatchesPython(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	prog := `import json, random, sys, hashlib
random.seed(0)
qs = [json.loads(l) for l in open(sys.argv[1]).readlines() if l]
random.shuffle(qs)
for q in qs[:100]:
    print(hashlib.sha256(q["question"].encode()).hexdigest())`
	out, err := exec.Command("/usr/bin/python3", "-c", prog, "data/test.jsonl").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(out))
	insts, _ := NewDebateTask().Instances()
	if len(want) != 100 {
		t.Fatalf("python printed %d questions", len(want))
	}
	for i, w := range want {
		h := sha256.Sum256([]byte(insts[i].Input))
		if hex.EncodeToString(h[:]) != w {
			t.Fatalf("position %d: %q is not python's question", i, insts[i].Input)
		}
	}
}
