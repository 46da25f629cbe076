// Package arithmetic is the multi-agent debate reference's arithmetic task
// (composable-models/llm_multiagent_debate, math/gen_math.py): the value of
// a+b*c+d-e*f for six integers in [0, 30), drawn by numpy's legacy
// generator after np.random.seed(0), six a question, 100 questions, as a
// question-answer task (the input is the expression, e.g. 12+15*21+0-3*27;
// the gold its integer value).
package arithmetic

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/pyrand"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// Name is the task's name.
const Name = "arithmetic-debate"

// Questions is how many questions the reference asks.
const Questions = 100

// Numbers are the reference's six integers of each question, in order.
func Numbers() [][6]int64 {
	r := pyrand.NewNumPy(0)
	out := make([][6]int64, Questions)
	for i := range out {
		for j := range out[i] {
			out[i][j] = r.NumPyRandint(0, 30)
		}
	}
	return out
}

// NewTask returns the task: the numeric rule by default, the reference's
// own (qa.ScorerDebateArithmetic) by --rule.
func NewTask() tasks.Task {
	var rows []qa.Row
	var all strings.Builder
	for i, n := range Numbers() {
		v := n[0] + n[1]*n[2] + n[3] - n[4]*n[5]
		rows = append(rows, qa.Row{Line: i + 1, ID: strconv.Itoa(i),
			Question: fmt.Sprintf("%d+%d*%d+%d-%d*%d", n[0], n[1], n[2], n[3], n[4], n[5]), Answers: []string{strconv.FormatInt(v, 10)}})
		all.WriteString(rows[i].Question + "\n")
	}
	t, err := qa.New(qa.Options{Name: Name, Kind: "arithmetic", Folders: []string{"arithmetic", "qa"}, Rows: rows, Scorer: qa.ScorerNumeric,
		Rules: []string{qa.ScorerNumeric, qa.ScorerDebateArithmetic},
		Data:  tasks.Dataset{Name: Name + " (numpy seed 0)", SHA256: tasks.SHA256([]byte(all.String())), Rows: len(rows)}})
	if err != nil {
		panic(err) // generated rows: cannot fail but by a bug
	}
	return t
}
