package results

import (
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/store"
)

// Answers puts the gold answer and the scorer's extracted answer beside a
// run's outputs, from the task the run recorded.
type Answers struct {
	task runinfo.Task // nil when it could not be opened
	// Err says why there are none (a file task's data moved), or nil.
	Err error
}

// RunAnswers opens a run's task through cat. On failure the Answers is
// empty and Err says why; reports go on without gold answers.
func RunAnswers(cat runinfo.Catalog, run store.Run) *Answers {
	t, err := runinfo.RecordedTask(cat, run.Spec)
	if err != nil {
		return &Answers{Err: err}
	}
	return &Answers{task: t}
}

// Gold is item idx's reference answer ("" when unknown or the task checks
// answers another way).
func (a *Answers) Gold(idx int) string {
	if a.task == nil {
		return ""
	}
	return a.task.Gold(idx)
}

// HiddenTests is the program that checks item idx's answer when the task
// checks by program (HumanEval, MBPP), else "".
func (a *Answers) HiddenTests(idx int) string {
	if a.task == nil {
		return ""
	}
	return a.task.HiddenTests(idx)
}

// Extracted is the answer the task's scorer reads from output for item
// idx ("" when it reads none or the task is unavailable).
func (a *Answers) Extracted(idx int, output string) string {
	if a.task == nil {
		return ""
	}
	return a.task.Extracted(idx, output)
}
