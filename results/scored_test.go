package results

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// TestBoNCurve: --by k on bon runs gives each rule's expected accuracy over
// N'-subsets, worked out by hand for two items of three candidates: a
// wrong answer scored 0.9 and a right one twice, at 0.5 (item 0) or 0.3
// (item 1).
func TestBoNCurve(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := "a", "b"
	cands := func(right float64) []reading.Candidate {
		return []reading.Candidate{{Key: &a, Score: 0.9}, {Key: &b, Score: right, Correct: true}, {Key: &b, Score: right, Correct: true}}
	}
	for _, c := range []struct {
		rule string
		want []float64
	}{
		// k'=1: 2 of 3 right. k'=2: only {1,2} is right (in {0,1} and {0,2}
		// the 0.9 wins and a ties b, a seen first). k'=3: best takes the
		// 0.9; weighted b's 1.0 over a's 0.9 in item 0, a's 0.9 over b's
		// 0.6 in item 1; majority b's two votes.
		{"best", []float64{2.0 / 3, 1.0 / 3, 0}},
		{"weighted", []float64{2.0 / 3, 1.0 / 3, 0.5}},
		{"majority", []float64{2.0 / 3, 1.0 / 3, 1}},
	} {
		id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "bon", Model: "sim", Status: store.StatusDone})
		if err != nil {
			t.Fatal(err)
		}
		for i, right := range []float64{0.5, 0.3} {
			detail, _ := json.Marshal(reading.TTSDetail{Select: c.rule, Candidates: cands(right)})
			if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Detail: detail, PromptTokens: 100, CompletionTokens: 300}); err != nil {
				t.Fatal(err)
			}
		}
		rows, _, ok, err := VoteCurve(ctx, st, render.Row{RunID: id, Strategy: "bon"}, stats.DefaultCurveOptions)
		if err != nil || !ok || len(rows) != 3 {
			t.Fatalf("%s: rows %+v ok %v err %v", c.rule, rows, ok, err)
		}
		for i, r := range rows {
			if math.Abs(r.Accuracy-c.want[i]) > 1e-12 || *r.TokensPerItem != 100+100*float64(i+1) || math.Abs(*r.BestOf-[]float64{2.0 / 3, 1, 1}[i]) > 1e-12 {
				t.Errorf("%s k'=%d: accuracy %v tokens %v best-of %v, want %v, %v, %v", c.rule, r.Step, r.Accuracy, *r.TokensPerItem, *r.BestOf,
					c.want[i], 100+100*(i+1), []float64{2.0 / 3, 1, 1}[i])
			}
		}
	}
}
