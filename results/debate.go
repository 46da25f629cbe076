package results

import (
	"context"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// RoundCurve is a debate run's accuracy of the majority after each round
// (had the debate stopped there) and of its best agent (any agent right),
// over the items with a transcript (its strategy's Rounds reader); ok is
// false when the run has none.
func RoundCurve(ctx context.Context, st *store.Store, s render.Row) (rows []render.SeriesRow, ok bool, err error) {
	read := reading.Of(s.Strategy).Rounds
	if read == nil {
		return nil, false, nil
	}
	items, err := st.Items(ctx, s.RunID)
	if err != nil {
		return nil, false, err
	}
	var right, any, ran []int
	for _, it := range items {
		d, has := read(it.Detail)
		if !has {
			continue
		}
		for r, rd := range d.Rounds {
			if r >= len(ran) {
				right, any, ran = append(right, 0), append(any, 0), append(ran, 0)
			}
			ran[r]++
			if rd.Correct {
				right[r]++
			}
			for _, t := range rd.Turns {
				if t.Correct {
					any[r]++
					break
				}
			}
		}
	}
	for r := range ran {
		acc := float64(right[r]) / float64(ran[r])
		row := render.SeriesRow{RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: s.Params, Model: s.Model,
			Simulated: s.Simulated, Status: s.Status, N: s.N, Step: r + 1, Ran: ran[r], Accuracy: acc,
			BestOf: render.Float(float64(any[r]) / float64(ran[r]))}
		if r > 0 {
			row.Gain = acc - rows[r-1].Accuracy
		}
		rows = append(rows, row)
	}
	return rows, len(rows) > 0, nil
}
