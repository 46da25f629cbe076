package results

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
)

// PassCurve on made-up outcomes: tasks with 4, 3, 1 and 0 successes of 4
// trials give pass^k = mean C(c,k)/C(4,k) and pass@k = mean 1 - C(4-c,k)/C(4,k).
func TestPassCurve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id, err := st.CreateRun(ctx, store.Run{Task: "tau-airline", Strategy: "react"})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []int{4, 3, 1, 0} {
		m := map[string]float64{"successes": float64(c)}
		for k := 1; k <= 4; k++ {
			m[fmt.Sprintf("pass^%d", k)] = 0 // the curve recomputes from successes
		}
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Key: fmt.Sprint(i), Metrics: m, Detail: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	rows, ok, err := PassCurve(ctx, st, render.Row{RunID: id})
	if err != nil || !ok || len(rows) != 4 {
		t.Fatalf("PassCurve: %d rows, %v, %v", len(rows), ok, err)
	}
	wantHat := []float64{0.5, (1 + 0.5) / 4, (1 + 0.25) / 4, 0.25}
	wantAt := []float64{0.5, (1 + 1 + 0.5) / 4, (1 + 1 + 0.75) / 4, 0.75}
	for k, r := range rows {
		if r.Step != k+1 || math.Abs(r.Accuracy-wantHat[k]) > 1e-12 || r.BestOf == nil || math.Abs(*r.BestOf-wantAt[k]) > 1e-12 {
			t.Errorf("k=%d: %+v (pass@k %v); want pass^k %v, pass@k %v", k+1, r, *r.BestOf, wantHat[k], wantAt[k])
		}
	}
	// A run without trials has no pass curve.
	other, _ := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "cot"})
	st.PutItem(ctx, store.Item{RunID: other, Index: 0, Key: "0", Metrics: map[string]float64{"best_of_k": 1}, Detail: []byte("{}")})
	if _, ok, err := PassCurve(ctx, st, render.Row{RunID: other}); ok || err != nil {
		t.Errorf("a cot run: ok %v, %v", ok, err)
	}
}
