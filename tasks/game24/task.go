package game24

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Task is the Game of 24 as a benchmark task.
type Task struct {
	rule string // scoring rule: RuleStrict ("" too) or RulePaper
}

// NewTask returns the task over the bundled puzzles.
func NewTask() *Task { return &Task{} }

// Name is "game24".
func (*Task) Name() string { return "game24" }

// Instances returns all 1362 puzzles; Input is the puzzle text "4 5 6 10".
func (*Task) Instances() ([]tasks.Instance, error) {
	ps, err := Puzzles()
	if err != nil {
		return nil, err
	}
	out := make([]tasks.Instance, len(ps))
	for i, p := range ps {
		out[i] = tasks.Instance{Index: p.Index, Key: p.Text(), Input: p.Text(), Data: p}
	}
	return out, nil
}

func numbersOf(inst tasks.Instance) []int {
	if p, ok := inst.Data.(Puzzle); ok {
		return p.Numbers
	}
	nums, _ := ParsePuzzle(inst.Input)
	return nums
}

// Score checks the output under the task's rule: by default (strict) the
// expression on the last Answer line, exactly.
func (t *Task) Score(inst tasks.Instance, output string) tasks.Score {
	v := Check(numbersOf(inst), output)
	if t.ruleName() == RulePaper {
		v = CheckPaper(inst.Input, output)
	}
	return tasks.Score{Correct: v.Correct, Answer: v.Expression, Reason: v.Reason}
}

// Vote keys for self-consistency.
const (
	VoteLine       = "line"       // the whole normalised Answer line
	VoteExpression = "expression" // the expression left of '=', spacing removed
	VoteCanonical  = "canonical"  // the expression up to commutativity and spacing
)

// VoteKeys lists the keys AnswerKey understands; line is the ToT paper's.
func (*Task) VoteKeys() []string { return []string{VoteLine, VoteExpression, VoteCanonical} }

// AnswerKey normalises an output's answer for majority voting.
func (*Task) AnswerKey(_ tasks.Instance, output, key string) (string, bool) {
	switch key {
	case VoteLine:
		line, ok := LastAnswerLine(output)
		if !ok {
			return "", false
		}
		return strings.Join(strings.Fields(strings.ToLower(line)), " "), true
	case VoteExpression, VoteCanonical:
		expr, ok := ExtractAnswer(output)
		if !ok || expr == "" {
			return "", false
		}
		if key == VoteCanonical {
			if e, err := ParseExpr(expr); err == nil {
				return Canonical(e), true
			}
		}
		return strings.Join(strings.Fields(expr), ""), true
	}
	return "", false
}

// ScoreRecord scores {"puzzle": "4 5 6 10", "output": "..."}.
func (t *Task) ScoreRecord(rec map[string]any) (tasks.Score, error) {
	puzzle, _ := rec["puzzle"].(string)
	output, ok := rec["output"].(string)
	if puzzle == "" || !ok {
		return tasks.Score{}, fmt.Errorf(`want "puzzle" and "output" text fields`)
	}
	nums, err := ParsePuzzle(puzzle)
	if err != nil || len(nums) != 4 {
		return tasks.Score{}, fmt.Errorf("puzzle %q: want four numbers", puzzle)
	}
	return t.Score(tasks.Instance{Input: puzzle, Data: Puzzle{Numbers: nums}}, output), nil
}
