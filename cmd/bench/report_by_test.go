package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportByTrialAndIteration(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "r.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "hotpotqa", "--strategy", "reflexion", "--range", "0:10",
		"--set", "trials=3", "--json"); code != 0 {
		t.Fatalf("reflexion run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "selfrefine", "--range", "900:905"); code != 0 {
		t.Fatalf("selfrefine run: exit %d: %s", code, stderr)
	}
	code, out, stderr := cli(t, "report", "--db", db, "--by", "trial")
	if code != 0 {
		t.Fatalf("report --by trial: exit %d: %s", code, stderr)
	}
	// One row per trial of the reflexion run; the selfrefine run has none.
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 || !strings.Contains(lines[0], "| trial |") ||
		!strings.Contains(out, "actor=cot trials=3 evaluator=oracle") || strings.Contains(out, "selfrefine") {
		t.Errorf("report --by trial:\n%s", out)
	}
	code, out, _ = cli(t, "report", "--db", db, "--by", "iteration", "--format", "json")
	var rows []struct {
		RunID    int64   `json:"run_id"`
		Step     int     `json:"step"`
		Ran      int     `json:"ran"`
		Accuracy float64 `json:"accuracy"`
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 4 || rows[0].Ran != 5 || rows[0].RunID != 2 {
		t.Errorf("report --by iteration --format json (exit %d, %v):\n%s", code, err, out)
	}
	if code, _, stderr := cli(t, "report", "--db", db, "--by", "turn"); code != 2 || !strings.Contains(stderr, "want trial, iteration, k or round") {
		t.Errorf("--by turn: exit %d: %s", code, stderr)
	}
	// bench show prints each trial's trajectory with the reflections between.
	code, out, _ = cli(t, "show", "1", "--db", db, "--item", "0")
	if code != 0 || !strings.Contains(out, "--- trial 1\nanswer:") || !strings.Contains(out, "reflection:") || !strings.Contains(out, "--- trial 2") {
		t.Errorf("show:\n%s", out)
	}
}

// TestReportByK checks bench report --by k against an enumeration of every
// subset of each item's exported samples (bitmasks, independent of
// stats.VoteCurve), under CoT-SC's rule: most votes, ties to the answer
// seen first, null keys abstain.
func TestReportByK(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "k.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cotsc", "--set", "k=6", "--range", "900:920"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := cli(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatal(stderr)
	}
	type sample struct {
		Key     *string `json:"key"`
		Correct bool    `json:"correct"`
	}
	var items [][]sample
	accuracy := 0.0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		var it struct {
			Score   float64  `json:"score"`
			Samples []sample `json:"samples"`
		}
		if err := json.Unmarshal([]byte(line), &it); err != nil || len(it.Samples) != 6 {
			t.Fatalf("export line without 6 samples (%v): %s", err, line)
		}
		items = append(items, it.Samples)
		accuracy += it.Score
	}
	accuracy /= float64(len(items))
	want := make([]struct{ vote, best, n float64 }, 7)
	for _, ss := range items {
		for mask := 1; mask < 1<<len(ss); mask++ {
			kp := 0
			count, first := map[string]int{}, map[string]int{}
			win, best := -1, false
			for i, s := range ss {
				if mask&(1<<i) == 0 {
					continue
				}
				kp++
				best = best || s.Correct
				if s.Key == nil {
					continue
				}
				if _, ok := first[*s.Key]; !ok {
					first[*s.Key] = i
				}
				count[*s.Key]++
			}
			for k, c := range count {
				if win < 0 || c > count[*ss[win].Key] || (c == count[*ss[win].Key] && first[k] < win) {
					win = first[k]
				}
			}
			w := &want[kp]
			w.n++
			if win >= 0 && ss[win].Correct {
				w.vote++
			}
			if best {
				w.best++
			}
		}
	}
	code, out, stderr = cli(t, "report", "--db", db, "--by", "k", "--format", "json")
	var rows []struct {
		Step     int
		Accuracy float64
		BestOf   float64 `json:"best_of"`
		Exact    bool
	}
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil || len(rows) != 6 {
		t.Fatalf("--by k: %d %v %s\n%s", code, err, stderr, out)
	}
	for _, r := range rows {
		w := want[r.Step]
		if !r.Exact || abs(r.Accuracy-w.vote/w.n) > 1e-9 || abs(r.BestOf-w.best/w.n) > 1e-9 {
			t.Errorf("k'=%d: vote %v best %v, enumeration %v %v", r.Step, r.Accuracy, r.BestOf, w.vote/w.n, w.best/w.n)
		}
	}
	if last := rows[5]; abs(last.Accuracy-accuracy) > 1e-9 {
		t.Errorf("at k'=k the curve is %v, the run's accuracy %v", last.Accuracy, accuracy)
	}
	if code, _, stderr := cli(t, "report", "--db", filepath.Join(t.TempDir(), "none.db"), "--by", "k"); code != 2 {
		t.Errorf("--by k without runs: %d %s", code, stderr)
	}
}
