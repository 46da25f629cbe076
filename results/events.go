package results

import (
	"context"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
)

// Events reads a run's events by item (store.RunEvents): what happened in
// each item, in its order, for the read side's tool table, the viewer's
// trajectory and the exports, without decoding any strategy's detail.
func Events(ctx context.Context, st *store.Store, runID int64) (map[int][]events.Event, error) {
	return st.RunEvents(ctx, runID, true)
}

// ItemEvents reads one item's events (store.ItemEvents).
func ItemEvents(ctx context.Context, st *store.Store, runID int64, item int) ([]events.Event, error) {
	return st.ItemEvents(ctx, runID, item)
}

// StepEvents are an item's events grouped by step, in order: a
// trajectory's turns as the viewer and bench show draw them.
type StepEvents struct {
	Step   string
	Events []events.Event
}

// ByStep groups events (in the item's order) into their steps, a step's
// events together where it first appears.
func ByStep(evs []events.Event) []StepEvents {
	var out []StepEvents
	at := map[string]int{}
	for _, e := range evs {
		i, ok := at[e.Step]
		if !ok || e.Kind == events.Verdict {
			out = append(out, StepEvents{Step: e.Step})
			i = len(out) - 1
			if e.Kind != events.Verdict {
				at[e.Step] = i
			}
		}
		out[i].Events = append(out[i].Events, e)
	}
	return out
}
