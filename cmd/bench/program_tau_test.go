package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// A τ-bench run of an agent written elsewhere (python/examples/tau_agent.py
// over the item's env API), killed with SIGKILL mid-run and resumed, ends
// with the uninterrupted run's rewards, pass^k, calls and tokens: the
// killed items' episodes are played again on fresh databases and their
// agent's and user's calls replay from the cache.
func TestTauProgramRunKilledResumes(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	if testing.Short() {
		t.Skip("starts a child process")
	}
	const python, script = "/usr/bin/python3", "../../python/examples/tau_agent.py"
	for _, f := range []string{python, script} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s absent (%v): scripts/install-sandbox.sh installs the interpreter", f, err)
		}
	}
	srv, served := countingSimWith(t, sim.DefaultParams(), 5*time.Millisecond)
	dir := t.TempDir()
	const total = 4
	args := func(db string) []string {
		return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--model", "sim", "--task", "tau-airline",
			"--strategy", "program", "--set", "cmd=" + python + " " + script, "--set", "trials=2", "--set", "timeout=120s",
			"--range", "0:4", "--concurrency", "2", "--json"}
	}
	refDB := filepath.Join(dir, "ref.db")
	code, out, stderr := cli(t, args(refDB)...)
	if code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	ref := summaryFields(t, out)
	if ref["n"] != float64(total) || ref["calls"] == float64(0) || served.Load() != int64(ref["calls"].(float64)) || ref["failed"] != float64(0) {
		t.Fatalf("reference run: %d requests served, summary %v", served.Load(), ref)
	}
	if _, ok := ref["pass^2"]; !ok {
		t.Fatalf("reference run has no pass^2: %v", ref)
	}

	db := filepath.Join(dir, "killed.db")
	stored := killAfter(t, args(db), db, 1, total)
	code, out, stderr = cli(t, "resume", "--last", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	got := summaryFields(t, out)
	if got["status"] != "done" {
		t.Errorf("resumed run's status %v", got["status"])
	}
	// Everything a run's figures are: its rewards, pass^k, episodes'
	// turns and tool calls, calls and tokens.
	for _, k := range []string{"n", "accuracy", "reward", "pass^1", "pass^2", "successes", "turns", "tool_calls", "tool_errors", "failed",
		"calls", "requests", "prompt_tokens", "completion_tokens"} {
		if !reflect.DeepEqual(got[k], ref[k]) {
			t.Errorf("killed at %d items and resumed: %s %v, uninterrupted %v", stored, k, got[k], ref[k])
		}
	}
	sameOutputs(t, refDB, int64(ref["run_id"].(float64)), db, int64(got["run_id"].(float64)))
	t.Logf("tau_agent.py on airline 0:4, 2 trials: killed after %d of %d items; resumed to reward %v, pass^2 %v, %v calls (reference %v, %v, %v)",
		stored, total, got["reward"], got["pass^2"], got["calls"], ref["reward"], ref["pass^2"], ref["calls"])
}

// summaryFields is bench run --json's summary as its fields (a run's
// metrics are fields of their own there).
func summaryFields(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("summary: %v: %s", err, out)
	}
	return m
}
