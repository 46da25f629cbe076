package results

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
)

// ModelUses sums a run's calls, tokens and cost by the model that
// answered as each response names it (a debate's agents' models,
// MODEL@NAME on a named endpoint), the run's model first, then by name; a
// call whose response names none counts under the run's model.
func ModelUses(ctx context.Context, st *store.Store, run store.Run) ([]render.ModelRow, error) {
	calls, err := st.Calls(ctx, run.ID, -1)
	if err != nil {
		return nil, err
	}
	by := map[string]*render.ModelRow{}
	for _, c := range calls {
		var resp struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(c.Response, &resp)
		m := resp.Model
		if m == "" {
			m = run.Model
		}
		if c.Purpose == "user" { // an episode's simulated user: a line of its own
			m += " (user)"
		}
		u := by[m]
		if u == nil {
			u = &render.ModelRow{RunID: run.ID, Strategy: run.Strategy, Model: m}
			by[m] = u
		}
		u.Calls++
		u.PromptTokens += c.PromptTokens
		u.CompletionTokens += c.CompletionTokens
		u.Cost += c.Cost
	}
	var out []render.ModelRow
	for _, u := range by {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b render.ModelRow) int {
		switch {
		case (a.Model == run.Model) != (b.Model == run.Model):
			if a.Model == run.Model {
				return -1
			}
			return 1
		case a.Model < b.Model:
			return -1
		case a.Model > b.Model:
			return 1
		}
		return 0
	})
	return out, nil
}
