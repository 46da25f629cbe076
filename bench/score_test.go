package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

func TestScoreLinesHotpotQA(t *testing.T) {
	t.Parallel()
	qs, err := hotpotqa.Questions()
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"question": "Who?", "gold": "The Beatles", "prediction": "Beatles"}`,
		`{"id": "` + qs[0].ID + `", "prediction": "Gesellschaft mit beschrankter Haftung"}`,
		``,
		`{"question": "Are both Coldplay and Pierre Bouvier from the same country?", "prediction": "yes"}`,
	}, "\n")
	var out bytes.Buffer
	sum, err := ScoreLines(hotpotqa.NewTask(), strings.NewReader(in), &out, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	wantEM, wantF1 := []float64{1, 0, 0}, []float64{1, 0.75, 0}
	for i := range 3 {
		var rec map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["em"] != wantEM[i] || rec["f1"] != wantF1[i] || rec["correct"] != (wantEM[i] == 1) {
			t.Errorf("line %d: %v", i+1, rec)
		}
	}
	want := `{"summary":{"n":3,"correct":1,"accuracy":0.3333333333333333,"rule":"hotpotqa/official-em-f1","em":0.3333333333333333,"f1":0.5833333333333334}}`
	if lines[3] != want {
		t.Errorf("summary\n got %s\nwant %s", lines[3], want)
	}
	if sum.N != 3 || sum.Correct != 1 || sum.Metrics["f1"] != 1.75/3 {
		t.Errorf("summary %+v", sum)
	}
	// A task without metrics keeps the plain summary.
	out.Reset()
	if _, err := ScoreLines(game24.NewTask(), strings.NewReader(`{"puzzle": "4 5 6 10", "output": "Answer: 4*5+10-6 = 24"}`), &out, ScoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), `{"summary":{"n":1,"correct":1,"accuracy":1,"rule":"game24/strict"}}`+"\n") {
		t.Errorf("game24 output %s", out.String())
	}
	// Errors name the line.
	if _, err := ScoreLines(hotpotqa.NewTask(), strings.NewReader("{\"gold\": \"x\"}\n"), &out, ScoreOptions{}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("missing prediction: %v", err)
	}
}

// TestScoreVotesPublishedCoT aggregates the ToT paper's published CoT
// samples (100 per puzzle, puzzles 900-919) into self-consistency votes.
// Voting on the whole Answer line is what the paper did: 2 of the 20
// puzzles come out right, the paper's CoT-SC rate on this slice (computed
// independently from the same file with Python's Counter).
func TestScoreVotesPublishedCoT(t *testing.T) {
	t.Parallel()
	f, err := os.ReadFile(filepath.Join("..", "tasks", "game24", "testdata", "published_outputs_sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var cot strings.Builder
	for _, line := range strings.Split(string(f), "\n") {
		if strings.Contains(line, `"method": "cot"`) {
			cot.WriteString(line + "\n")
		}
	}
	results := map[string]ScoreSummary{}
	for _, key := range []string{"line", "expression", "canonical"} {
		var out bytes.Buffer
		sum, err := ScoreLines(game24.NewTask(), strings.NewReader(cot.String()), &out, ScoreOptions{GroupBy: "idx", Vote: key})
		if err != nil {
			t.Fatal(err)
		}
		if sum.N != 2000 || sum.Groups != 20 || sum.Correct != 80 {
			t.Fatalf("%s: summary %+v, want 2000 samples, 80 correct, 20 groups", key, sum)
		}
		if got := strings.Count(out.String(), `{"group":`); got != 20 {
			t.Errorf("%s: %d group lines", key, got)
		}
		results[key] = sum
	}
	if results["line"].VotedCorrect != 2 {
		t.Errorf("line vote: %d of 20 correct, want 2", results["line"].VotedCorrect)
	}
	t.Logf("voted correct of 20: line %d, expression %d, canonical %d",
		results["line"].VotedCorrect, results["expression"].VotedCorrect, results["canonical"].VotedCorrect)
	var out bytes.Buffer
	if _, err := ScoreLines(game24.NewTask(), strings.NewReader(cot.String()), &out, ScoreOptions{GroupBy: "idx", Vote: "answer"}); err == nil {
		t.Error("a vote key game24 does not know was accepted")
	}
}
