package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

func TestScoreLinesHotpotQA(t *testing.T) {
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
	sum, err := ScoreLines(hotpotqa.NewTask(), strings.NewReader(in), &out)
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
	want := `{"summary":{"n":3,"correct":1,"accuracy":0.3333333333333333,"em":0.3333333333333333,"f1":0.5833333333333334}}`
	if lines[3] != want {
		t.Errorf("summary\n got %s\nwant %s", lines[3], want)
	}
	if sum.N != 3 || sum.Correct != 1 || sum.Metrics["f1"] != 1.75/3 {
		t.Errorf("summary %+v", sum)
	}
	// A task without metrics keeps the plain summary.
	out.Reset()
	if _, err := ScoreLines(game24.NewTask(), strings.NewReader(`{"puzzle": "4 5 6 10", "output": "Answer: 4*5+10-6 = 24"}`), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), `{"summary":{"n":1,"correct":1,"accuracy":1}}`+"\n") {
		t.Errorf("game24 output %s", out.String())
	}
	// Errors name the line.
	if _, err := ScoreLines(hotpotqa.NewTask(), strings.NewReader("{\"gold\": \"x\"}\n"), &out); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("missing prediction: %v", err)
	}
}
