package results

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// bonRun stores a bon run under rule with two items of three candidates
// (a wrong answer scored 0.9, a right one twice at 0.5), each item's
// tokens prompt and completion.
func bonRun(t *testing.T, st *store.Store, rule string, prompt, completion int) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "bon", Model: "sim", Status: store.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	a, b := "a", "b"
	for i := range 2 {
		detail, _ := json.Marshal(reading.TTSDetail{Select: rule, Candidates: []reading.Candidate{
			{Key: &a, Score: 0.9}, {Key: &b, Score: 0.5, Correct: true}, {Key: &b, Score: 0.5, Correct: true}}})
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Detail: detail, PromptTokens: prompt, CompletionTokens: completion}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// TestVoteCurveNotesTheRule: every verifier rule of bon, majority
// included, is named in the curve's note; a plain vote (cotsc) has none.
func TestVoteCurveNotesTheRule(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	for _, rule := range []string{"best", "weighted", "majority"} {
		id := bonRun(t, st, rule, 100, 300)
		_, note, ok, err := VoteCurve(ctx, st, render.Row{RunID: id, Strategy: "bon"}, stats.DefaultCurveOptions)
		if err != nil || !ok || !strings.Contains(note, "(bon select="+rule+")") {
			t.Errorf("select=%s: note %q (%v %v)", rule, note, ok, err)
		}
	}
	id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "cotsc", Model: "sim", Status: store.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	k := func(s string) *string { return &s }
	detail, _ := json.Marshal(map[string]any{"samples": []any{map[string]any{"answer": "1", "correct": true}, map[string]any{"answer": "2"}},
		"vote": map[string]any{"keys": []*string{k("1"), k("2")}, "key": "1", "winner": 0}})
	if err := st.PutItem(ctx, store.Item{RunID: id, Index: 0, Detail: detail}); err != nil {
		t.Fatal(err)
	}
	rows, note, ok, err := VoteCurve(ctx, st, render.Row{RunID: id, Strategy: "cotsc"}, stats.DefaultCurveOptions)
	if err != nil || !ok || note != "" || len(rows) != 2 {
		t.Errorf("cotsc: %d rows, note %q (%v %v)", len(rows), note, ok, err)
	}
	if _, _, _, err := VoteCurve(ctx, closedStore(t), render.Row{RunID: id, Strategy: "cotsc"}, stats.DefaultCurveOptions); err == nil {
		t.Error("a closed store gave a curve")
	}
	if _, _, ok, err := VoteCurve(ctx, st, render.Row{RunID: id, Strategy: "nosuch"}, stats.DefaultCurveOptions); ok || err != nil {
		t.Errorf("a strategy without samples: %v %v", ok, err)
	}
}

// TestGroupCurveAveragesRuns: a configuration of two runs has, at each k,
// the mean of the runs' accuracies and of their tokens per item.
func TestGroupCurveAveragesRuns(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	g := render.Group{Runs: []render.Row{
		{RunID: bonRun(t, st, "best", 100, 300), Strategy: "bon"},
		{RunID: bonRun(t, st, "majority", 200, 600), Strategy: "bon"},
	}}
	curve, err := GroupCurve(ctx, st, g)
	if err != nil || len(curve) != 3 {
		t.Fatalf("curve %+v, %v", curve, err)
	}
	// k'=1..3: best 2/3, 1/3, 0 and majority 2/3, 1/3, 1 (TestBoNCurve);
	// tokens 100+100k' and 200+200k'.
	for i, want := range []struct{ acc, tokens float64 }{{2.0 / 3, 300}, {1.0 / 3, 450}, {0.5, 600}} {
		p := curve[i]
		if p.K != i+1 || math.Abs(p.Accuracy-want.acc) > 1e-12 || math.Abs(p.Tokens-want.tokens) > 1e-9 {
			t.Errorf("k'=%d: %+v, want accuracy %v tokens %v", i+1, p, want.acc, want.tokens)
		}
	}
	if _, err := GroupCurve(ctx, closedStore(t), g); err == nil {
		t.Error("a closed store gave a curve")
	}
}
