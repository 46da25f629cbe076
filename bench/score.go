package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/tasks"
)

// ScoreSummary is the last line `bench score` writes.
type ScoreSummary struct {
	N        int     `json:"n"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
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
	out, _ := json.Marshal(map[string]ScoreSummary{"summary": sum})
	bw.Write(out)
	bw.WriteByte('\n')
	return sum, bw.Flush()
}
