package results

import (
	"context"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
)

func debateItem(rounds ...[3]bool) map[string]any {
	// each round: agent 0 right, agent 1 right, the majority right
	var rs []any
	for _, r := range rounds {
		rs = append(rs, map[string]any{"turns": []any{map[string]any{"output": "x", "correct": r[0]}, map[string]any{"output": "y", "correct": r[1]}},
			"vote": map[string]any{"key": "x", "winner": 0}, "correct": r[2]})
	}
	return map[string]any{"agents": 2, "rounds": rs}
}

// TestRoundCurve: per round, the majority's accuracy had the debate
// stopped there, that of any agent being right, the items that ran the
// round and the gain over the round before; items without a transcript
// are left out; a strategy without rounds has no curve.
func TestRoundCurve(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t)
	r := putItems(t, st, "debate", []any{
		debateItem([3]bool{false, false, false}, [3]bool{true, false, false}, [3]bool{true, true, true}),
		debateItem([3]bool{true, true, true}, [3]bool{true, true, true}),
		debateItem([3]bool{false, true, false}, [3]bool{true, true, true}, [3]bool{false, false, false}),
		map[string]any{"note": "no transcript"},
	}, nil)
	row := render.Row{RunID: r.ID, Task: "qa", Strategy: "debate", Model: "m", N: 4}
	rows, ok, err := RoundCurve(ctx, st, row)
	if err != nil || !ok || len(rows) != 3 {
		t.Fatalf("rows %+v, %v %v", rows, ok, err)
	}
	for i, want := range []struct {
		ran             int
		acc, best, gain float64
	}{
		{3, 1.0 / 3, 2.0 / 3, 0},
		{3, 2.0 / 3, 1, 1.0 / 3},
		{2, 0.5, 0.5, 0.5 - 2.0/3},
	} {
		got := rows[i]
		if got.Step != i+1 || got.Ran != want.ran || !closeTo(got.Accuracy, want.acc) || got.BestOf == nil || !closeTo(*got.BestOf, want.best) ||
			!closeTo(got.Gain, want.gain) || got.RunID != r.ID || got.Strategy != "debate" || got.N != 4 {
			t.Errorf("round %d: %+v (best %v), want %+v", i+1, got, got.BestOf, want)
		}
	}
	if rows, ok, err := RoundCurve(ctx, st, render.Row{RunID: r.ID, Strategy: "cot"}); rows != nil || ok || err != nil {
		t.Errorf("cot: %v %v %v", rows, ok, err)
	}
	none := putItems(t, st, "debate", []any{map[string]any{"agents": 2}}, nil)
	if rows, ok, err := RoundCurve(ctx, st, render.Row{RunID: none.ID, Strategy: "debate"}); rows != nil || ok || err != nil {
		t.Errorf("a debate without transcripts: %v %v %v", rows, ok, err)
	}
	if _, _, err := RoundCurve(ctx, closedStore(t), row); err == nil {
		t.Error("a closed store gave a curve")
	}
}

func closeTo(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestHiddenTests: a run on a code task shows an item's hidden tests; a
// task that checks answers otherwise, an item out of range or a task that
// cannot be opened shows none.
func TestHiddenTests(t *testing.T) {
	code := RunAnswers(cat, store.Run{Spec: []byte(`{"config":{"task":"humaneval"}}`)})
	if code.Err != nil {
		t.Fatal(code.Err)
	}
	if h := code.HiddenTests(0); !strings.Contains(h, "def check(candidate)") {
		t.Errorf("HumanEval/0's hidden tests: %.200q", h)
	}
	if h := code.HiddenTests(100000); h != "" {
		t.Errorf("an item out of range: %q", h)
	}
	if h := RunAnswers(cat, store.Run{Spec: []byte(`{"config":{"task":"game24"}}`)}).HiddenTests(0); h != "" {
		t.Errorf("game24's hidden tests: %q", h)
	}
	bad := RunAnswers(cat, store.Run{Spec: []byte(`{"config":{"task":"nosuch"}}`)})
	if bad.Err == nil || bad.HiddenTests(0) != "" || bad.Gold(0) != "" || bad.Extracted(0, "x") != "" {
		t.Errorf("a task that cannot be opened: %+v", bad)
	}
}
