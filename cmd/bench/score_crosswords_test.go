package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreCrosswordsPaperReproducesLogs: `bench score --task crosswords
// --rule paper` writes each published io, cot and DFS line back with the
// logged r_letter and r_word as metrics.letter and metrics.word, and
// metrics.game as logged (solved ⇔ r_letter = 1 for DFS states), then a
// summary line.
func TestScoreCrosswordsPaperReproducesLogs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"gpt4_io_sample.jsonl", "gpt4_cot_sample.jsonl", "gpt4_tot_dfs_prune_sample.jsonl", "gpt4_tot_dfs_no_prune_sample.jsonl"} {
		code, out, stderr := cli(t, "score", "--task", "crosswords", "--rule", "paper", "--in", "../../tasks/crosswords/testdata/"+name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], `{"summary":`) {
			t.Fatalf("%s: no summary line", name)
		}
		for i, l := range lines[:len(lines)-1] {
			var rec struct {
				RLetter float64                              `json:"r_letter"`
				RWord   float64                              `json:"r_word"`
				RGame   *bool                                `json:"r_game"`
				Correct bool                                 `json:"correct"`
				Metrics struct{ Letter, Word, Game float64 } `json:"metrics"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			game := rec.RLetter == 1
			if rec.RGame != nil {
				game = *rec.RGame
			}
			if rec.Metrics.Letter != rec.RLetter || rec.Metrics.Word != rec.RWord || (rec.Metrics.Game == 1) != game || rec.Correct != game {
				t.Errorf("%s line %d: %s", name, i+1, l)
			}
		}
	}
}

// TestScoreCrosswordsBadLines: a line the task cannot score is the user's
// to fix: one line naming what a line needs, exit 2, for a missing idx, a
// missing output, an idx outside the test puzzles, and a line that is not
// JSON.
func TestScoreCrosswordsBadLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`{"output": "h1. apple"}`, `"idx": K`},
		{`{"idx": 3}`, `"output": TEXT`},
		{`{"idx": 20, "output": ""}`, "0-19"},
		{`not json`, "not a JSON object"},
	} {
		in := filepath.Join(t.TempDir(), "in.jsonl")
		if err := os.WriteFile(in, []byte(`{"idx": 0, "output": ""}`+"\n"+tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := cli(t, "score", "--task", "crosswords", "--rule", "paper", "--in", in)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "line 2") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line naming line 2 and %s", tc.line, code, stderr, tc.want)
		}
	}
}
