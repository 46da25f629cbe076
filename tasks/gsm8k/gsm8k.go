// Package gsm8k is GSM8K (Cobbe et al., 2021), the 1,319 grade-school math
// word problems of its test split, embedded (data/test.jsonl, MIT licence in
// data/LICENSE), as a question-answer task (tasks/qa): scored by the numeric
// scorer against the number after "####" in each worked solution, with
// few-shot prompts of our own (prompts/gsm8k/io and cot; every other
// template is the generic qa one).
package gsm8k

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

//go:embed data/test.jsonl
var testJSONL []byte

// NumProblems is the number of problems in the embedded test split.
const NumProblems = 1319

// Name is the task's name.
const Name = "gsm8k"

var loadRows = sync.OnceValues(func() ([]qa.Row, error) {
	var rows []qa.Row
	for n, line := range bytes.Split(testJSONL, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r struct{ Question, Answer string }
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("gsm8k: line %d: %w", n+1, err)
		}
		rows = append(rows, qa.Row{Line: n + 1, Question: r.Question, Answers: []string{r.Answer}})
	}
	if len(rows) != NumProblems {
		return nil, fmt.Errorf("gsm8k: %d problems embedded, want %d", len(rows), NumProblems)
	}
	return rows, nil
})

var dataHash = sync.OnceValue(func() string { return tasks.SHA256(testJSONL) })

// Rows returns the problems in file order; each row's answer is the worked
// solution ending in "#### N".
func Rows() ([]qa.Row, error) {
	rows, err := loadRows()
	return append([]qa.Row(nil), rows...), err
}

// NewTask returns the task over the embedded problems.
func NewTask() tasks.Task { return newTask(Name, func(rows []qa.Row) []qa.Row { return rows }) }

// newTask is the task called name over the rows in the order arrange
// puts them in. Its rules are numeric, the default, and the multi-agent
// debate reference's (qa.ScorerDebatePaper).
func newTask(name string, arrange func([]qa.Row) []qa.Row) tasks.Task {
	rows, err := loadRows()
	if err != nil {
		return broken{err}
	}
	t, err := qa.New(qa.Options{Name: name, Kind: Name, Folders: []string{Name, "qa"}, Rows: arrange(rows),
		Scorer: qa.ScorerNumeric, Rules: []string{qa.ScorerNumeric, qa.ScorerDebatePaper},
		Data: tasks.Dataset{Name: Name, SHA256: dataHash(), Rows: len(rows)}})
	if err != nil {
		return broken{err}
	}
	return t
}

// broken stands for the task when the embedded data cannot be read (a
// build with a damaged file): every use reports why.
type broken struct{ err error }

func (broken) Name() string                                            { return Name }
func (b broken) Instances() ([]tasks.Instance, error)                  { return nil, b.err }
func (b broken) Score(tasks.Instance, string) tasks.Score              { return tasks.Score{Reason: b.err.Error()} }
func (broken) AnswerKey(tasks.Instance, string, string) (string, bool) { return "", false }
func (broken) VoteKeys() []string                                      { return []string{qa.VoteAnswer} }
