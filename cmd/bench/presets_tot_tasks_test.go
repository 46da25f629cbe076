package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// TestCrosswordsCreativePresetsInProcessAndServed: every tot-crosswords and
// tot-creative preset runs offline on the simulator and through bench
// serve-sim on 127.0.0.1 with the same numbers (the judge's included).
// Two items a preset: two items run at once, and the crosswords DFS
// presets make 100 to 200 calls a puzzle (a third item cost a third of
// the time, issue 25).
func TestCrosswordsCreativePresetsInProcessAndServed(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	url := startServeSim(t)
	dir := t.TempDir()
	for _, name := range []string{"tot-crosswords/io", "tot-crosswords/cot", "tot-crosswords/tot", "tot-crosswords/tot-no-prune",
		"tot-crosswords/tot-no-backtrack", "tot-crosswords/tot-best-state", "tot-creative/io", "tot-creative/cot", "tot-creative/tot"} {
		var sums [2]map[string]any
		for i, extra := range [][]string{nil, {"--base-url", url}} {
			args := append([]string{"run", "--db", filepath.Join(dir, fmt.Sprintf("%d.db", i)), "--preset", name, "--range", "0:1", "--json"}, extra...)
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
		if sums[0]["n"] != 1.0 || sums[0]["calls"] == 0.0 {
			t.Errorf("%s: %s", name, a)
		}
		if string(a) != string(b) {
			t.Errorf("%s:\nin process %s\nserved     %s", name, a, b)
		}
	}
}
