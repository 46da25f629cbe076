package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// ScoreLines re-scores JSON Lines records with the task: every output line
// is the input object plus "correct" (and "answer", "reason"), and the last
// line is {"summary": {...}}.
func ScoreLines(task tasks.Task, r io.Reader, w io.Writer) (ScoreSummary, error) {
	rs, ok := task.(tasks.RecordScorer)
	if !ok {
		return ScoreSummary{}, fmt.Errorf("task %s cannot re-score records", task.Name())
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	bw := bufio.NewWriter(w)
	var sum ScoreSummary
	metricSums, metricCounts := map[string]float64{}, map[string]int{}
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(raw, &rec); err != nil {
			return sum, fmt.Errorf("line %d: not a JSON object: %w", line, err)
		}
		score, err := rs.ScoreRecord(rec)
		if err != nil {
			return sum, fmt.Errorf("line %d: %w", line, err)
		}
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
		out, err := json.Marshal(rec)
		if err != nil {
			return sum, fmt.Errorf("line %d: %w", line, err)
		}
		bw.Write(out)
		bw.WriteByte('\n')
		sum.N++
		if score.Correct {
			sum.Correct++
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
	out, _ := json.Marshal(map[string]ScoreSummary{"summary": sum})
	bw.Write(out)
	bw.WriteByte('\n')
	return sum, bw.Flush()
}
