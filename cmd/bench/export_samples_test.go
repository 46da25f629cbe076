package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestExportCarriesSamples: a CoT-SC run's exported items list each sample
// with the vote key, answer and verdict its stored detail records, in
// order; an io k=1 item's one sample has its answer as its key (io keeps
// no vote keys).
func TestExportCarriesSamples(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	for _, args := range [][]string{{"--strategy", "cotsc", "--set", "k=4"}, {"--strategy", "io"}} {
		if code, _, stderr := cli(t, append([]string{"run", "--db", db, "--task", "game24", "--range", "900:903"}, args...)...); code != 0 {
			t.Fatalf("run %v: %d %s", args, code, stderr)
		}
	}
	type sample struct {
		Key     *string `json:"key"`
		Answer  string  `json:"answer"`
		Correct bool    `json:"correct"`
	}
	for run, k := range map[string]int{"1": 4, "2": 1} {
		code, stdout, stderr := cli(t, "export", run, "--db", db)
		if code != 0 {
			t.Fatalf("export %s: %d %s", run, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 4 {
			t.Fatalf("run %s: %d lines, want header + 3 items", run, len(lines))
		}
		for _, line := range lines[1:] {
			var item struct {
				Samples []sample `json:"samples"`
				Detail  struct {
					Vote struct {
						Keys []*string `json:"keys"`
					} `json:"vote"`
					Samples []struct {
						Answer  string `json:"answer"`
						Correct bool   `json:"correct"`
					} `json:"samples"`
				} `json:"detail"`
			}
			if err := json.Unmarshal([]byte(line), &item); err != nil {
				t.Fatal(err)
			}
			var want []sample
			for i, s := range item.Detail.Samples {
				key := &item.Detail.Samples[i].Answer
				if item.Detail.Vote.Keys != nil {
					key = item.Detail.Vote.Keys[i]
				} else if s.Answer == "" {
					key = nil
				}
				want = append(want, sample{Key: key, Answer: s.Answer, Correct: s.Correct})
			}
			if len(want) != k || !reflect.DeepEqual(item.Samples, want) {
				t.Errorf("run %s: exported samples %+v, the detail's %+v (want %d)", run, item.Samples, want, k)
			}
		}
	}
}
