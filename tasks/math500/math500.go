// Package math500 is MATH-500 (Hendrycks et al., 2021; the 500-problem
// test subset of "Let's Verify Step by Step", Lightman et al., 2023),
// embedded (data/math500_test.jsonl, identical to openai/prm800k's
// prm800k/math_splits/test.jsonl; MIT licence in data/LICENSE.prm800k), as
// a question-answer task (tasks/qa) scored by the math scorer: the last
// \boxed{} of an output against the problem's answer, by value and
// structure (tasks/mathans), or by the original MATH string rule
// (--rule hendrycks). Items carry their level (1–5) and subject as labels.
package math500

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

//go:embed data/math500_test.jsonl
var testJSONL []byte

// NumProblems is the number of embedded problems.
const NumProblems = 500

// Name is the task's name.
const Name = "math500"

// Problem is one embedded record.
type Problem struct {
	Problem  string `json:"problem"`
	Solution string `json:"solution"`
	Answer   string `json:"answer"`
	Subject  string `json:"subject"`
	Level    int    `json:"level"`
	UniqueID string `json:"unique_id"`
}

var load = sync.OnceValues(func() ([]Problem, error) {
	var out []Problem
	for n, line := range bytes.Split(testJSONL, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var p Problem
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, fmt.Errorf("math500: line %d: %w", n+1, err)
		}
		if p.Answer == "" || p.Level < 1 || p.Level > 5 || p.Subject == "" {
			return nil, fmt.Errorf("math500: line %d: answer, level 1-5 and subject required", n+1)
		}
		out = append(out, p)
	}
	if len(out) != NumProblems {
		return nil, fmt.Errorf("math500: %d problems embedded, want %d", len(out), NumProblems)
	}
	return out, nil
})

var dataHash = sync.OnceValue(func() string { return tasks.SHA256(testJSONL) })

// Rules: math (the default), strict and hendrycks, by these names or the
// math scorer's (math:strict, math:hendrycks).
var ruleAliases = map[string]string{"full": qa.ScorerMath, "strict": qa.ScorerMath + ":" + qa.MathStrict, "hendrycks": qa.ScorerMath + ":" + qa.MathHendrycks}

// Task is MATH-500: a qa.Task with labels.
type Task struct {
	*qa.Task
	problems []Problem
}

// NewTask returns the task over the embedded problems, scored by the full
// math rule.
func NewTask() tasks.Task {
	ps, err := load()
	if err != nil {
		return broken{err}
	}
	rows := make([]qa.Row, len(ps))
	for i, p := range ps {
		rows[i] = qa.Row{Line: i + 1, ID: p.UniqueID, Question: p.Problem, Answers: []string{p.Answer}}
	}
	t, err := qa.New(qa.Options{Name: Name, Kind: Name, Folders: []string{Name, "qa"}, Rows: rows,
		Scorer: qa.ScorerMath, Rules: []string{qa.ScorerMath},
		Data: tasks.Dataset{Name: Name, SHA256: dataHash(), Rows: len(rows)}})
	if err != nil {
		return broken{err}
	}
	return &Task{Task: t.(*qa.Task), problems: ps}
}

// Problems returns the embedded problems in file order.
func Problems() ([]Problem, error) {
	ps, err := load()
	return append([]Problem(nil), ps...), err
}

// Rules lists math (the full rule, the default), math:strict and
// math:hendrycks.
func (t *Task) Rules() []string {
	return []string{qa.ScorerMath, qa.ScorerMath + ":" + qa.MathStrict, qa.ScorerMath + ":" + qa.MathHendrycks}
}

// WithRule returns the task under a rule: math, math:strict,
// math:hendrycks, or the short names full, strict and hendrycks.
func (t *Task) WithRule(name string) (tasks.Task, error) {
	if full, ok := ruleAliases[name]; ok {
		name = full
	}
	c, err := t.Task.WithRule(name)
	if err != nil {
		return nil, err
	}
	return &Task{Task: c.(*qa.Task), problems: t.problems}, nil
}

// LabelKeys are level and subject.
func (*Task) LabelKeys() []string { return []string{"level", "subject"} }

// Labels returns an item's level ("1" to "5") and subject.
func (t *Task) Labels(inst tasks.Instance) map[string]string {
	if inst.Index < 0 || inst.Index >= len(t.problems) {
		return nil
	}
	p := t.problems[inst.Index]
	return map[string]string{"level": strconv.Itoa(p.Level), "subject": p.Subject}
}

// broken stands for the task when the embedded data cannot be read.
type broken struct{ err error }

func (broken) Name() string                                            { return Name }
func (b broken) Instances() ([]tasks.Instance, error)                  { return nil, b.err }
func (b broken) Score(tasks.Instance, string) tasks.Score              { return tasks.Score{Reason: b.err.Error()} }
func (broken) AnswerKey(tasks.Instance, string, string) (string, bool) { return "", false }
func (broken) VoteKeys() []string                                      { return []string{qa.VoteAnswer} }

var (
	_ tasks.Labeled      = (*Task)(nil)
	_ tasks.RuleChooser  = (*Task)(nil)
	_ tasks.RecordScorer = (*Task)(nil) // qa's: {idx, output} lines name the problem by its row
	_ tasks.DataSource   = (*Task)(nil)
)
