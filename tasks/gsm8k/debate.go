package gsm8k

import (
	"github.com/reasonbench/reasonbench/pyrand"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// DebateName is GSM8K in the multi-agent debate reference's order.
const DebateName = "gsm8k-debate"

// DebateOrder is the order the multi-agent debate reference
// (composable-models/llm_multiagent_debate, gsm/gen_gsm.py) reads the
// test split in: Python's random.seed(0), then random.shuffle of the
// file's lines; it answers the first 100. DebateOrder()[i] is the file
// position (0-based) of the problem at position i.
func DebateOrder() []int { return pyrand.Permutation(0, NumProblems) }

// NewDebateTask is GSM8K's test problems in DebateOrder: range 0:100 is
// the reference's 100 questions in its order. Each row keeps its file
// line; the problems, gold answers and rules are GSM8K's.
func NewDebateTask() tasks.Task {
	return newTask(DebateName, func(rows []qa.Row) []qa.Row {
		out := make([]qa.Row, len(rows))
		for i, j := range DebateOrder() {
			out[i] = rows[j]
		}
		return out
	})
}
