package code

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/reasonbench/reasonbench/tasks"
)

// RecordError is a record the task cannot score: Index is its position in
// the batch.
type RecordError struct {
	Index int
	Err   error
}

func (e RecordError) Error() string { return e.Err.Error() }
func (e RecordError) Unwrap() error { return e.Err }

// RecordIndex is the record's position (bench.ScoreLinesContext names its line).
func (e RecordError) RecordIndex() int { return e.Index }

// ErrUnbound is ScoreRecord on a task bound to no executor.
var ErrUnbound = errors.New("no sandbox bound: bind one with WithExecutor")

// record reads one logged line as the reference logs it: the problem by
// task_id (HumanEval) or name (MBPP), the code from solution (the
// Reflexion logs), completion (openai/human-eval's samples) or output.
func (t *Task) record(rec map[string]any) (Problem, string, error) {
	var id string
	for _, k := range []string{"task_id", "name", "id"} {
		if s, ok := rec[k].(string); ok && s != "" {
			id = s
			break
		}
	}
	if id == "" {
		return Problem{}, "", fmt.Errorf("no task_id or name naming the problem")
	}
	i, ok := t.byID[id]
	if !ok {
		return Problem{}, "", fmt.Errorf("%q is not a problem of %s", id, t.name)
	}
	for _, k := range []string{"solution", "completion", "output"} {
		if v, present := rec[k]; present {
			s, ok := v.(string)
			if !ok {
				return Problem{}, "", fmt.Errorf("%s is not a string", k)
			}
			return t.problems[i], ExtractCode(s, t.problems[i].EntryPoint), nil
		}
	}
	return Problem{}, "", fmt.Errorf("no solution (or completion, or output) field with the code")
}

// ScoreRecord scores one logged line alone.
func (t *Task) ScoreRecord(rec map[string]any) (tasks.Score, error) {
	s, err := t.ScoreRecords(context.Background(), []map[string]any{rec}, 1)
	if err != nil {
		return tasks.Score{}, err
	}
	return s[0], nil
}

// ScoreRecords scores logged lines: under the isolated rule each in its
// own sandbox, at most concurrency at once; under the reference rule all
// in one program, in order, in one namespace (Reference). A record that
// cannot be scored is a RecordError; a sandbox that cannot run, another
// error.
func (t *Task) ScoreRecords(ctx context.Context, recs []map[string]any, concurrency int) ([]tasks.Score, error) {
	if t.ex == nil {
		return nil, ErrUnbound
	}
	probs := make([]Problem, len(recs))
	codes := make([]string, len(recs))
	for i, rec := range recs {
		p, c, err := t.record(rec)
		if err != nil {
			return nil, RecordError{i, err}
		}
		probs[i], codes[i] = p, c
	}
	out := make([]tasks.Score, len(recs))
	if t.rule == RuleReference {
		items := make([]refItem, len(recs))
		for i := range recs {
			items[i] = refItem{code: ReferenceProgram(probs[i], codes[i])}
		}
		vs, err := runReference(ctx, t.ex, "hidden", items)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			out[i] = tasks.Score{Correct: v.pass, Answer: codes[i], Reason: v.reason}
		}
		return out, nil
	}
	if concurrency < 1 {
		concurrency = 1
	}
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := range recs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, err := t.run(ctx, t.ex, Site(i), probs[i], codes[i])
			out[i] = s
			if err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("record %d: %w", i+1, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, first
}
