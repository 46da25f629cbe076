package bench

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// TestMCTSRunKilledMidItemResumes kills an mcts run in the middle of an
// item, after some of its iterations were checkpointed, resumes it, and
// checks the totals, calls and trees equal an uninterrupted run's.
func TestMCTSRunKilledMidItemResumes(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "game24", "mcts", "900:904", 1
	// solved_value above 1 never stops early: every item runs 6 iterations.
	cfg.Params = map[string]any{"iterations": 6, "solved_value": 2, "rollout": "sample"}
	killAndResume(t, cfg, 150, 6)
}

// TestLATSRunKilledMidItemResumes does the same for lats with the self
// evaluator (reflections go to the store's memory). Three questions: the
// 75th call falls mid-item in the second (six doubled the time, issue 25).
func TestLATSRunKilledMidItemResumes(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "hotpotqa", "lats", "0:3", 1
	// The oracle evaluator: the simulator, reading honestly, rarely finds
	// the gold answer, so every item searches all its iterations and the
	// kill lands mid-item.
	cfg.Params = map[string]any{"iterations": 8, "evaluator": "oracle"}
	killAndResume(t, cfg, 75, 0)
}

// killAndResume runs cfg whole, then again killed at the killAt-th call,
// resumes it and compares. rootVisits > 0 checks every stored root's
// visits.
func killAndResume(t *testing.T, cfg Config, killAt int64, rootVisits int) {
	t.Helper()
	ctx := context.Background()

	wholeStore := tempStore(t)
	whole, err := (&Engine{Store: wholeStore}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}

	st := tempStore(t)
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	var calls atomic.Int64
	backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if calls.Add(1) == killAt {
			kill()
			return llm.Response{}, context.Canceled
		}
		return model.Sample(ctx, req)
	})
	sum, err := (&Engine{Store: st, Backend: backend}).Run(runCtx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	run := sum.RunID
	var item, next int
	if err := st.DB().QueryRowContext(ctx, `SELECT item_idx, next_trial FROM checkpoints WHERE run_id = ?
		AND item_idx NOT IN (SELECT idx FROM items WHERE run_id = ?)`, run, run).Scan(&item, &next); err != nil {
		t.Fatalf("no checkpoint of the item in flight: %v", err)
	}
	if next < 1 {
		t.Fatalf("item %d checkpointed at iteration %d, want mid-item", item, next)
	}
	t.Logf("killed at call %d: item %d checkpointed at iteration %d", killAt, item, next)

	resumed, err := (&Engine{Store: st}).Resume(ctx, run, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := callsByItem(t, st, run), callsByItem(t, wholeStore, whole.RunID); !maps.Equal(got, want) {
		t.Errorf("calls per item and purpose:\n%v\nuninterrupted:\n%v", got, want)
	}
	gotItems, _ := st.Items(ctx, run)
	wantItems, _ := wholeStore.Items(ctx, whole.RunID)
	for i := range gotItems {
		g, w := gotItems[i], wantItems[i]
		if g.Calls != w.Calls || g.PromptTokens != w.PromptTokens || g.CompletionTokens != w.CompletionTokens || g.Output != w.Output {
			t.Errorf("item %d: %d calls %d+%d tokens, uninterrupted %d calls %d+%d tokens",
				g.Index, g.Calls, g.PromptTokens, g.CompletionTokens, w.Calls, w.PromptTokens, w.CompletionTokens)
		}
		gn, err := st.Nodes(ctx, run, g.Index)
		if err != nil {
			t.Fatal(err)
		}
		wn, _ := wholeStore.Nodes(ctx, whole.RunID, w.Index)
		for j := range gn {
			gn[j].RunID, wn[j].RunID = 0, 0
		}
		if len(gn) == 0 || (rootVisits > 0 && gn[0].Visits != rootVisits) || !slices.Equal(gn, wn) {
			t.Errorf("item %d: stored tree differs from the uninterrupted one (root visits %v)", g.Index, gn)
		}
	}
	if got, want := reflectionsOf(t, st, run), reflectionsOf(t, wholeStore, whole.RunID); !slices.Equal(got, want) {
		t.Errorf("reflections after resume:\n%v\nuninterrupted:\n%v", got, want)
	} else if cfg.Strategy == "lats" && len(want) == 0 {
		t.Error("lats wrote no reflection: the memory is not exercised")
	}
	items := []int{}
	for _, it := range wantItems {
		items = append(items, it.Index)
	}
	if got, want := stepsOf(t, st, run, items), stepsOf(t, wholeStore, whole.RunID, items); !slices.Equal(got, want) {
		t.Errorf("steps after resume differ:\n%v\n%v", got, want)
	}
	if resumed.N != whole.N || resumed.Accuracy != whole.Accuracy || resumed.Calls != whole.Calls ||
		resumed.PromptTokens != whole.PromptTokens || resumed.CompletionTokens != whole.CompletionTokens ||
		!maps.Equal(resumed.Metrics, whole.Metrics) {
		t.Errorf("resumed summary %+v\nuninterrupted %+v", resumed, whole)
	}
}
