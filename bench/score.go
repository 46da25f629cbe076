package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/reasonbench/reasonbench/tasks"
)

// ScoreSummary is the last line `bench score` writes.
type ScoreSummary struct {
	N        int     `json:"n"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
	// With grouping: how many groups, and how many of their voted answers
	// are correct.
	Groups        int     `json:"groups,omitempty"`
	VotedCorrect  int     `json:"voted_correct,omitempty"`
	VotedAccuracy float64 `json:"voted_accuracy,omitempty"`
	// Rule is the scoring rule that judged the records ("game24/paper").
	Rule string `json:"rule,omitempty"`
	// Metrics holds the mean of every metric the task's scores carry (em,
	// f1, ...), over the records that have it; flattened into the object.
	Metrics map[string]float64 `json:"-"`
}

// MarshalJSON writes n, correct and accuracy, then the metric means in
// key order.
func (s ScoreSummary) MarshalJSON() ([]byte, error) {
	type plain ScoreSummary
	b, err := json.Marshal(plain(s))
	if err != nil || len(s.Metrics) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // drop the closing brace
	for _, k := range slices.Sorted(maps.Keys(s.Metrics)) {
		if k == "n" || k == "correct" || k == "accuracy" {
			continue
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(s.Metrics[k])
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// maxLine bounds one input line; published trajectories are far shorter.
const maxLine = 16 << 20

// ScoreOptions ask `bench score` to aggregate samples like self-consistency.
type ScoreOptions struct {
	GroupBy string // record field whose value groups samples ("idx"); "" = no grouping
	// Vote is the vote key for the majority vote in a group ("" = the
	// task's default), or VoteBest / VoteWeighted by the records'
	// verifier_score.
	Vote string
	// Concurrency bounds the records a BatchScorer task runs at once (code
	// tasks: sandboxes); 0 means 1.
	Concurrency int
}

// group collects one group's samples in input order.
type group struct {
	key     any
	outputs []string
	correct []bool
	scores  []float64 // verifier scores, for --vote best|weighted
}

// InputError is a ScoreLines error the user fixes in the input or its
// options (a line that is not a record the task can score), not a failure
// of the harness.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// BatchScorer is implemented by tasks that score a file's records
// together (the code tasks: concurrently in the sandbox, or in one shared
// namespace under the reference rule). An error wrapping a value with
// RecordIndex() names the record the task cannot score.
type BatchScorer interface {
	ScoreRecords(ctx context.Context, recs []map[string]any, concurrency int) ([]tasks.Score, error)
}

// ScoreLines re-scores JSON Lines records with the task: every output line
// is the input object plus "correct" (and "answer", "reason"). With
// o.GroupBy, one line per group follows, {"group": {...}} with the majority
// vote over the group's outputs under o.Vote and whether the voted answer is
// correct. The last line is {"summary": {...}}.
func ScoreLines(task tasks.Task, r io.Reader, w io.Writer, o ScoreOptions) (ScoreSummary, error) {
	return ScoreLinesContext(context.Background(), task, r, w, o)
}

// ScoreLinesContext is ScoreLines under ctx. A BatchScorer task gets every
// record at once, o.Concurrency of them run at a time; the output is in
// input order either way.
func ScoreLinesContext(ctx context.Context, task tasks.Task, r io.Reader, w io.Writer, o ScoreOptions) (ScoreSummary, error) {
	byScore := o.Vote == VoteBest || o.Vote == VoteWeighted
	if o.Vote != "" && !byScore && !slices.Contains(task.VoteKeys(), o.Vote) {
		return ScoreSummary{}, InputError{fmt.Errorf("--vote %s: task %s knows %v, and %s and %s by %q", o.Vote, task.Name(), task.VoteKeys(), VoteBest, VoteWeighted, VerifierField)}
	}
	var groups []*group
	byKey := map[string]*group{}
	rs, ok := task.(tasks.RecordScorer)
	if !ok {
		return ScoreSummary{}, InputError{fmt.Errorf("task %s cannot re-score records", task.Name())}
	}
	batch, isBatch := task.(BatchScorer)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	bw := bufio.NewWriter(w)
	sum := ScoreSummary{Rule: tasks.RuleName(task)}
	metricSums, metricCounts := map[string]float64{}, map[string]int{}
	emit := func(line int, rec map[string]any, score tasks.Score) error {
		rec["correct"] = score.Correct
		rec["answer"] = score.Answer
		if score.Reason != "" {
			rec["reason"] = score.Reason
		}
		for k, v := range score.Metrics {
			rec[k] = v
			metricSums[k] += v
			metricCounts[k]++
		}
		if len(score.Metrics) > 0 { // also together, as {"metrics": {...}}
			rec["metrics"] = score.Metrics
		}
		if o.GroupBy != "" {
			gk, ok := rec[o.GroupBy]
			if !ok {
				return InputError{fmt.Errorf("line %d: no %q field to group by", line, o.GroupBy)}
			}
			id := fmt.Sprint(gk)
			g := byKey[id]
			if g == nil {
				g = &group{key: gk}
				byKey[id] = g
				groups = append(groups, g)
			}
			text, _ := rec["output"].(string)
			if text == "" {
				text, _ = rec["prediction"].(string)
			}
			g.outputs = append(g.outputs, text)
			g.correct = append(g.correct, score.Correct)
			if byScore {
				v, err := verifierScore(rec)
				if err != nil {
					return InputError{fmt.Errorf("line %d: %w", line, err)}
				}
				g.scores = append(g.scores, v)
			}
		}
		out, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		bw.Write(out)
		bw.WriteByte('\n')
		sum.N++
		if score.Correct {
			sum.Correct++
		}
		return nil
	}
	var recs []map[string]any
	var lines []int
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(raw, &rec); err != nil {
			return sum, InputError{fmt.Errorf("line %d: not a JSON object: %w", line, err)}
		}
		if isBatch {
			recs, lines = append(recs, rec), append(lines, line)
			continue
		}
		score, err := rs.ScoreRecord(rec)
		if err != nil {
			return sum, InputError{fmt.Errorf("line %d: %w", line, err)}
		}
		if err := emit(line, rec, score); err != nil {
			return sum, err
		}
	}
	if isBatch && sc.Err() == nil {
		scores, err := batch.ScoreRecords(ctx, recs, o.Concurrency)
		var ri interface{ RecordIndex() int }
		if errors.As(err, &ri) && ri.RecordIndex() < len(lines) {
			return sum, InputError{fmt.Errorf("line %d: %w", lines[ri.RecordIndex()], err)}
		}
		if err != nil {
			return sum, err
		}
		for i, rec := range recs {
			if err := emit(lines[i], rec, scores[i]); err != nil {
				return sum, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return sum, fmt.Errorf("read input: %w", err)
	}
	if sum.N > 0 {
		sum.Accuracy = float64(sum.Correct) / float64(sum.N)
	}
	for k, v := range metricSums {
		if sum.Metrics == nil {
			sum.Metrics = map[string]float64{}
		}
		sum.Metrics[k] = v / float64(metricCounts[k])
	}
	for _, g := range groups {
		w, fields := groupVote(task, g, o.Vote)
		ok := w >= 0 && g.correct[w]
		fields[o.GroupBy], fields["n"], fields["correct"] = g.key, len(g.outputs), ok
		line, _ := json.Marshal(map[string]any{"group": fields})
		bw.Write(line)
		bw.WriteByte('\n')
		sum.Groups++
		if ok {
			sum.VotedCorrect++
		}
	}
	if sum.Groups > 0 {
		sum.VotedAccuracy = float64(sum.VotedCorrect) / float64(sum.Groups)
	}
	out, _ := json.Marshal(map[string]ScoreSummary{"summary": sum})
	bw.Write(out)
	bw.WriteByte('\n')
	return sum, bw.Flush()
}
