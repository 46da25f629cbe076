package results

import (
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/summary"
	"github.com/reasonbench/reasonbench/tasks"
)

// Answers puts the gold answer and the scorer's extracted answer beside a
// run's outputs, from the task the run recorded.
type Answers struct {
	task  tasks.Task
	insts map[int]tasks.Instance
	// Err says why there are none (a file task's data moved), or nil.
	Err error
}

// RunAnswers opens a run's task. On failure the Answers is empty and Err
// says why; reports go on without gold answers.
func RunAnswers(run store.Run) *Answers {
	a := &Answers{insts: map[int]tasks.Instance{}}
	t, err := summary.RecordedTask(run.Spec)
	if err != nil {
		a.Err = err
		return a
	}
	all, err := t.Instances()
	if err != nil {
		a.Err = err
		return a
	}
	a.task = t
	for _, in := range all {
		a.insts[in.Index] = in
	}
	return a
}

// Gold is item idx's reference answer ("" when unknown or the task checks
// answers another way).
func (a *Answers) Gold(idx int) string {
	return a.insts[idx].Gold
}

// HiddenTests is the program that checks item idx's answer when the task
// checks by program (tasks.TestShower: HumanEval, MBPP), else "".
func (a *Answers) HiddenTests(idx int) string {
	ts, ok := a.task.(tasks.TestShower)
	in, found := a.insts[idx]
	if !ok || !found {
		return ""
	}
	return ts.HiddenTests(in)
}

// Extracted is the answer the task's scorer reads from output for item
// idx ("" when it reads none or the task is unavailable).
func (a *Answers) Extracted(idx int, output string) string {
	in, ok := a.insts[idx]
	if !ok || a.task == nil {
		return ""
	}
	return a.task.Score(in, output).Answer
}
