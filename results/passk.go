package results

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// PassCurve is `bench report --by k` for a run whose items play n trials
// each (react on a task with a simulated user): at every k' <= n, pass^k'
// (Accuracy: all of k' trials drawn without replacement succeed,
// C(c,k')/C(n,k'), τ-bench's definition) and pass@k' (BestOf: some of them
// does, 1 - C(n-c,k')/C(n,k')), each averaged over the items. ok is false
// for a run of items without trials.
func PassCurve(ctx context.Context, st *store.Store, row render.Row) ([]render.SeriesRow, bool, error) {
	items, err := st.Items(ctx, row.RunID)
	if err != nil {
		return nil, false, err
	}
	n := 0
	for _, it := range items {
		if _, ok := it.Metrics["successes"]; !ok {
			return nil, false, nil
		}
		t := 0
		for hasKey(it.Metrics, fmt.Sprintf("pass^%d", t+1)) {
			t++
		}
		if n != 0 && t != n {
			return nil, false, fmt.Errorf("run %d: items of %d and %d trials", row.RunID, n, t)
		}
		n = t
	}
	if n == 0 {
		return nil, false, nil
	}
	var out []render.SeriesRow
	for k := 1; k <= n; k++ {
		var hat, at float64
		for _, it := range items {
			c := int(it.Metrics["successes"])
			hat += stats.PassHat(n, c, k)
			at += stats.PassAtK(n, c, k)
		}
		m := float64(len(items))
		r := render.SeriesRow{RunID: row.RunID, Task: row.Task, Strategy: row.Strategy, Params: row.Params, Model: row.Model,
			Simulated: row.Simulated, Status: row.Status, N: len(items), Step: k, Ran: len(items), Accuracy: hat / m,
			BestOf: render.Float(at / m), Exact: render.Bool(true)}
		if k > 1 {
			r.Gain = r.Accuracy - out[k-2].Accuracy
		}
		out = append(out, r)
	}
	return out, true, nil
}

func hasKey(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}
