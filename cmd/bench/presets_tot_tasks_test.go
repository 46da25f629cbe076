package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// TestCrosswordsCreativePresetsInProcessAndServed: every tot-crosswords and
// tot-creative preset runs offline on the simulator and through bench
// serve-sim on 127.0.0.1 with the same numbers (the judge's included).
// Two items a preset: two items run at once, and the crosswords DFS
// presets make 100 to 200 calls a puzzle (a third item cost a third of
// the time, issue 25).
func TestCrosswordsCreativePresetsInProcessAndServed(t *testing.T) {
	url := startServeSim(t)
	dir := t.TempDir()
	for _, name := range []string{"tot-crosswords/io", "tot-crosswords/cot", "tot-crosswords/tot", "tot-crosswords/tot-no-prune",
		"tot-crosswords/tot-no-backtrack", "tot-crosswords/tot-best-state", "tot-creative/io", "tot-creative/cot", "tot-creative/tot"} {
		var sums [2]map[string]any
		for i, extra := range [][]string{nil, {"--base-url", url}} {
			args := append([]string{"run", "--db", filepath.Join(dir, fmt.Sprintf("%d.db", i)), "--preset", name, "--range", "0:2", "--json"}, extra...)
			code, out, stderr := cli(t, args...)
			if code != 0 {
				t.Fatalf("%s %v: exit %d: %s", name, extra, code, stderr)
			}
			if err := json.Unmarshal([]byte(out), &sums[i]); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"run_id", "wall_seconds"} {
				delete(sums[i], k)
			}
		}
		a, _ := json.Marshal(sums[0])
		b, _ := json.Marshal(sums[1])
		if sums[0]["n"] != 2.0 || sums[0]["calls"] == 0.0 {
			t.Errorf("%s: %s", name, a)
		}
		if string(a) != string(b) {
			t.Errorf("%s:\nin process %s\nserved     %s", name, a, b)
		}
	}
}

// TestCrosswordsCreativeToTResumeAfterKill kills `bench run` of the ToT
// presets of both tasks with SIGKILL part way, resumes, and compares the
// numbers with an uninterrupted run. A crosswords ToT puzzle is ~100 calls,
// so 6 puzzles killed after 2 leave the child busy long after the kill;
// a creative item is 5 calls, so it takes 30 to be sure to kill mid-run.
func TestCrosswordsCreativeToTResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Latency: 2 * time.Millisecond}))
	defer srv.Close()
	for _, tc := range []struct {
		preset      string
		n, killAt   int
		concurrency string
	}{{"tot-crosswords/tot", 6, 2, "2"}, {"tot-creative/tot", 30, 8, "2"}} {
		args := func(db string) []string {
			return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--preset", tc.preset,
				"--range", fmt.Sprintf("0:%d", tc.n), "--concurrency", tc.concurrency, "--json"}
		}
		killAndResume(t, tc.preset, t.TempDir(), args, tc.killAt, tc.n)
	}
}
