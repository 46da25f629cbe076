package results

import (
	"context"
	"maps"
	"slices"
	"sort"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
)

// ToolRows is, per run that called MCP tools, one row per tool and a row
// (all) with the per-item distributions (`bench report --by tool`, the
// viewer's tool table), from the items' tool events. Runs without tool
// calls give no rows.
func ToolRows(ctx context.Context, st *store.Store, runs []store.Run) ([]render.ToolRow, error) {
	var rows []render.ToolRow
	for _, r := range runs {
		items, err := st.Items(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		evs, err := st.RunEvents(ctx, r.ID, false) // tool events: no model call is read
		if err != nil {
			return nil, err
		}
		type key struct{ server, tool string }
		lat := map[key][]float64{}
		errs, replayed := map[key]int{}, map[key]int{}
		var perItem, steps []float64
		for _, it := range items {
			calls := 0
			if s, ok := it.Metrics["steps"]; ok {
				steps = append(steps, s)
			}
			for _, c := range evs[it.Index] {
				if c.Kind != events.Tool {
					continue
				}
				calls++
				k := key{c.Server, c.Tool}
				lat[k] = append(lat[k], c.LatencyMS)
				if c.Error != "" {
					errs[k]++
				}
				if c.Cached {
					replayed[k]++
				}
			}
			perItem = append(perItem, float64(calls))
		}
		if len(lat) == 0 {
			continue
		}
		base := render.ToolRow{RunID: r.ID, Task: r.Task, Strategy: r.Strategy, Model: r.Model, Simulated: r.Simulated,
			Status: r.Status, N: len(items)}
		all := base
		all.Server, all.Tool = "", "(all)"
		var every []float64
		keys := slices.SortedFunc(maps.Keys(lat), func(a, b key) int {
			if a.server != b.server {
				return compare(a.server, b.server)
			}
			return compare(a.tool, b.tool)
		})
		for _, k := range keys {
			row := base
			row.Server, row.Tool = k.server, k.tool
			fill(&row, lat[k], errs[k], replayed[k])
			rows = append(rows, row)
			every = append(every, lat[k]...)
			all.Errors += errs[k]
			all.Replayed += replayed[k]
		}
		fill(&all, every, all.Errors, all.Replayed)
		all.CallsPerItem = spread(perItem)
		all.StepsPerItem = spread(steps)
		rows = append(rows, all)
	}
	return rows, nil
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func fill(row *render.ToolRow, lat []float64, errs, replayed int) {
	row.Calls, row.Errors, row.Replayed = len(lat), errs, replayed
	if len(lat) == 0 {
		return
	}
	row.Success = float64(len(lat)-errs) / float64(len(lat))
	s := spread(lat)
	row.LatencyMS, row.P50MS = s.Mean, s.Median
	sorted := slices.Sorted(slices.Values(lat))
	row.P90MS = sorted[min(len(sorted)-1, int(0.9*float64(len(sorted))))]
}

// spread is a distribution's mean, median (lower middle) and maximum; nil
// for none.
func spread(v []float64) *render.Spread {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return &render.Spread{Mean: sum / float64(len(s)), Median: s[(len(s)-1)/2], Max: s[len(s)-1]}
}
