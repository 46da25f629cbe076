// Package tasks defines what a benchmark task offers the strategies: its
// instances, how a final answer is scored, and optional capabilities (a
// thought space for tree search, tools for ReAct) as separate interfaces.
package tasks

import (
	"fmt"
	"strconv"
	"strings"
)

// Instance is one problem of a task.
type Instance struct {
	Index int    // row index in the task's bundled data; --range selects by it
	Key   string // stable identity across runs (puzzle text, question id)
	Input string // what prompts show as {{.Input}}
	Gold  string // reference answer; "" when the task checks answers another way
	Data  any    // the task's own record (game24.Puzzle, hotpotqa.Question)
}

// Score is the verdict on one final output.
type Score struct {
	Correct bool               `json:"correct"`
	Answer  string             `json:"answer"`           // the answer extracted from the output
	Reason  string             `json:"reason,omitempty"` // why it is wrong
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// Task is a benchmark: bundled instances and a scorer.
type Task interface {
	Name() string
	Instances() ([]Instance, error)
	// Score judges a model's final output for an instance.
	Score(inst Instance, output string) Score
	// AnswerKey normalises an extracted answer for majority voting under the
	// named vote key; ok=false means the output gives no vote.
	AnswerKey(inst Instance, output, key string) (string, bool)
	// VoteKeys lists the vote keys AnswerKey understands, the default first.
	VoteKeys() []string
}

// Range selects instances by row index, half-open like a Go slice.
type Range struct{ Start, End int }

// ParseRange reads "900:1000", "900:" or ":10"; "" means everything.
func ParseRange(s string, n int) (Range, error) {
	if strings.TrimSpace(s) == "" {
		return Range{0, n}, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	if !ok {
		return Range{}, fmt.Errorf("bad range %q: want START:END, e.g. 900:1000", s)
	}
	r := Range{0, n}
	var err error
	if lo = strings.TrimSpace(lo); lo != "" {
		if r.Start, err = strconv.Atoi(lo); err != nil {
			return Range{}, fmt.Errorf("bad range %q: start is not a number", s)
		}
	}
	if hi = strings.TrimSpace(hi); hi != "" {
		if r.End, err = strconv.Atoi(hi); err != nil {
			return Range{}, fmt.Errorf("bad range %q: end is not a number", s)
		}
	}
	if r.Start < 0 || r.End > n || r.Start >= r.End {
		return Range{}, fmt.Errorf("bad range %q: want 0 <= START < END <= %d", s, n)
	}
	return r, nil
}

// String formats the range as START:END.
func (r Range) String() string { return fmt.Sprintf("%d:%d", r.Start, r.End) }

// Select returns the instances whose Index lies in r.
func Select(all []Instance, r Range) []Instance {
	var out []Instance
	for _, in := range all {
		if in.Index >= r.Start && in.Index < r.End {
			out = append(out, in)
		}
	}
	return out
}

// RecordScorer is implemented by tasks that can re-score outputs written
// elsewhere (`bench score`): rec is one JSON Lines object.
type RecordScorer interface {
	ScoreRecord(rec map[string]any) (Score, error)
}

// Labeled is implemented by tasks whose items carry labels a table can be
// split by (MATH's level and subject): bench report --by level.
type Labeled interface {
	// LabelKeys names the labels, in the order tables show them.
	LabelKeys() []string
	// Labels returns an instance's labels ("level": "3").
	Labels(inst Instance) map[string]string
}
