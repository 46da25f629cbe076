package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportByTrialAndIteration(t *testing.T) {
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
	if code, _, stderr := cli(t, "report", "--db", db, "--by", "round"); code != 2 || !strings.Contains(stderr, "want trial or iteration") {
		t.Errorf("--by round: exit %d: %s", code, stderr)
	}
	// bench show prints each trial's trajectory with the reflections between.
	code, out, _ = cli(t, "show", "1", "--db", db, "--item", "0")
	if code != 0 || !strings.Contains(out, "--- trial 1\nanswer:") || !strings.Contains(out, "reflection:") || !strings.Contains(out, "--- trial 2") {
		t.Errorf("show:\n%s", out)
	}
}
