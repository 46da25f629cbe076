package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
)

// debate runs alike in process and through serve-sim, and report --by
// round's last round is the run's accuracy.
func TestDebateInProcessAndServeSim(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flags := []string{"--task", "game24", "--strategy", "debate", "--range", "900:908", "--concurrency", "4", "--json"}
	code, out, stderr := cli(t, append([]string{"run", "--db", dir + "/a.db"}, flags...)...)
	if code != 0 {
		t.Fatalf("in process: %s", stderr)
	}
	var local bench.Summary
	var flat map[string]any // the metrics are flattened into the summary
	if json.Unmarshal([]byte(out), &local) != nil || json.Unmarshal([]byte(out), &flat) != nil {
		t.Fatalf("summary %s", out)
	}
	url := startServeSim(t)
	served := runSummary(t, "serve-sim", append([]string{"run", "--db", dir + "/b.db", "--base-url", url}, flags...)...)
	if local.Accuracy != served.Accuracy || local.Calls != served.Calls || local.PromptTokens != served.PromptTokens ||
		local.CompletionTokens != served.CompletionTokens || local.Requests != served.Requests {
		t.Errorf("in process %+v\nserve-sim %+v", local, served)
	}
	if local.Calls != 8*3*2 {
		t.Errorf("%d calls, want 8 items × 3 agents × 2 rounds", local.Calls)
	}

	code, out, stderr = cli(t, "report", "--db", dir+"/a.db", "--by", "round", "--format", "json")
	if code != 0 {
		t.Fatalf("report --by round: %d %s", code, stderr)
	}
	var rows []render.SeriesRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Step != 1 || rows[1].Step != 2 || rows[1].Ran != 8 {
		t.Fatalf("rows %+v, want rounds 1 and 2 of 8 items", rows)
	}
	if rows[1].Accuracy != local.Accuracy || rows[0].Accuracy != flat["first_round_majority"] {
		t.Errorf("by round %v, %v; run accuracy %v, first-round majority %v", rows[0].Accuracy, rows[1].Accuracy, local.Accuracy, flat["first_round_majority"])
	}
	if code, _, stderr := cli(t, "report", "--db", dir+"/a.db", "--by", "round", "--runs", "999"); code != 2 || !strings.Contains(stderr, "round") {
		t.Errorf("--by round without debate runs: exit %d %s", code, stderr)
	}

	code, out, stderr = cli(t, "show", "--db", dir+"/a.db", "--item", "902", "1")
	if code != 0 {
		t.Fatalf("show: %s", stderr)
	}
	for _, want := range []string{"debate (3 agents × 2 rounds", "round 1: ", "round 2: ", " of 3 agents", "  agent 3 (call r0/a2): key "} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
}
