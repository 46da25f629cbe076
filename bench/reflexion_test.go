package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/store"
)

func reflexionConfig(rng string, params map[string]any) Config {
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "hotpotqa", "reflexion", rng, 1
	cfg.Params = params
	return cfg
}

// callsByItem counts a run's calls per item and purpose, failing on a
// call that errored.
func callsByItem(t *testing.T, st *store.Store, run int64) map[string]int {
	t.Helper()
	calls, err := st.Calls(context.Background(), run, -1)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, c := range calls {
		if c.Error != "" {
			t.Errorf("run %d item %d: a stored call failed: %s", run, c.Item, c.Error)
		}
		out[fmt.Sprintf("%d %s", c.Item, c.Purpose)]++
	}
	return out
}

// reflectionsOf lists a run's reflections as "key trial text".
func reflectionsOf(t *testing.T, st *store.Store, run int64) []string {
	t.Helper()
	rs, err := st.RunReflections(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		if r.Memory != store.RunMemory(run) {
			t.Errorf("reflection in memory %q, want %q", r.Memory, store.RunMemory(run))
		}
		out = append(out, fmt.Sprintf("%s %d %s", r.InstanceKey, r.Trial, r.Text))
	}
	return out
}

// stepsOf lists a run's trajectory steps as "item trial step kind".
func stepsOf(t *testing.T, st *store.Store, run int64, items []int) []string {
	t.Helper()
	var out []string
	for _, i := range items {
		steps, err := st.Steps(context.Background(), run, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			out = append(out, fmt.Sprintf("%d %d %d %s", i, s.Trial, s.Step, s.Kind))
		}
	}
	return out
}

func TestReflexionRunKilledMidItemResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := reflexionConfig("0:10", map[string]any{"trials": 5})

	wholeStore := tempStore(t)
	whole, err := (&Engine{Store: wholeStore}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if whole.PerTrialRan[2] == 0 {
		t.Fatalf("no item reached trial 3: %v", whole.PerTrialRan)
	}

	// Killed when an item's third trial asks the actor: its prompt is the
	// first to carry two reflections.
	st := tempStore(t)
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	killed := false
	backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == "cot" && strings.Count(req.Messages[0].Content, sim.NamedFailure) >= 2 && !killed {
			killed = true
			kill()
			return llm.Response{}, context.Canceled
		}
		return model.Sample(ctx, req)
	})
	sum, err := (&Engine{Store: st, Backend: backend}).Run(runCtx, cfg)
	if !errors.Is(err, context.Canceled) || !killed {
		t.Fatalf("interrupted run: %v (killed %v)", err, killed)
	}
	run := sum.RunID
	var item, next int
	if err := st.DB().QueryRowContext(ctx, `SELECT item_idx, next_trial FROM checkpoints WHERE run_id = ?
		AND item_idx NOT IN (SELECT idx FROM items WHERE run_id = ?)`, run, run).Scan(&item, &next); err != nil {
		t.Fatalf("no checkpoint of the item in flight: %v", err)
	}
	if next != 2 {
		t.Fatalf("item %d checkpointed at trial %d, want 2", item, next)
	}
	before := reflectionsOf(t, st, run)

	resumed, err := (&Engine{Store: st}).Resume(ctx, run, "")
	if err != nil {
		t.Fatal(err)
	}
	// Every reflection stored before the kill is kept, none is repeated, and
	// the run ends with the same memory as the uninterrupted one.
	after := reflectionsOf(t, st, run)
	for _, r := range before {
		if !slices.Contains(after, r) {
			t.Errorf("reflection lost on resume: %s", r)
		}
	}
	if want := reflectionsOf(t, wholeStore, whole.RunID); !slices.Equal(after, want) {
		t.Errorf("reflections after resume:\n%v\nuninterrupted:\n%v", after, want)
	}
	// No completed trial ran twice: calls per item and purpose match.
	if got, want := callsByItem(t, st, run), callsByItem(t, wholeStore, whole.RunID); !maps.Equal(got, want) {
		t.Errorf("calls per item and purpose:\n%v\nuninterrupted:\n%v", got, want)
	}
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got, want := stepsOf(t, st, run, items), stepsOf(t, wholeStore, whole.RunID, items); !slices.Equal(got, want) {
		t.Errorf("steps after resume differ from the uninterrupted run's:\n%v\n%v", got, want)
	}
	// Per item too: the resumed item counts the calls of its trials from
	// before the kill.
	gotItems, _ := st.Items(ctx, run)
	wantItems, _ := wholeStore.Items(ctx, whole.RunID)
	for i := range gotItems {
		g, w := gotItems[i], wantItems[i]
		if g.Calls != w.Calls || g.PromptTokens != w.PromptTokens || g.CompletionTokens != w.CompletionTokens {
			t.Errorf("item %d: %d calls %d+%d tokens, uninterrupted %d calls %d+%d tokens",
				g.Index, g.Calls, g.PromptTokens, g.CompletionTokens, w.Calls, w.PromptTokens, w.CompletionTokens)
		}
	}
	if resumed.N != whole.N || resumed.Accuracy != whole.Accuracy || !slices.Equal(resumed.PerTrial, whole.PerTrial) ||
		!slices.Equal(resumed.PerTrialRan, whole.PerTrialRan) || resumed.Calls != whole.Calls ||
		resumed.PromptTokens != whole.PromptTokens || resumed.CompletionTokens != whole.CompletionTokens ||
		!maps.Equal(resumed.Metrics, whole.Metrics) {
		t.Errorf("resumed summary %+v\nuninterrupted %+v", resumed, whole)
	}
}

func TestReflexionSummaryAndMemoryFrom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	eng := &Engine{Store: st}
	first, err := eng.Run(ctx, reflexionConfig("0:10", map[string]any{"trials": 3}))
	if err != nil {
		t.Fatal(err)
	}
	if len(first.PerTrial) != 3 || len(first.PerTrialRan) != 3 || first.PerTrialRan[0] != 1 || first.PerTrial[2] != first.Accuracy ||
		first.PerTrial[0] > first.PerTrial[1] || first.PerTrial[1] > first.PerTrial[2] {
		t.Errorf("per trial %v ran %v accuracy %v", first.PerTrial, first.PerTrialRan, first.Accuracy)
	}
	b, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	if !strings.Contains(js, `"per_trial":[`) || !strings.Contains(js, `"per_trial_ran":[`) ||
		strings.Contains(js, "after_trial_") || strings.Contains(js, "ran_trial_") || !strings.Contains(js, `"evaluator":"oracle"`) {
		t.Errorf("summary JSON: %s", js)
	}
	if ParamSummary("reflexion", first.Params) != "actor=cot trials=3 evaluator=oracle" {
		t.Errorf("param summary %q", ParamSummary("reflexion", first.Params))
	}

	// A later run starts from the first run's reflections.
	memory := reflectionsOf(t, st, first.RunID)
	if len(memory) == 0 {
		t.Fatal("the first run stored no reflections")
	}
	second, err := eng.Run(ctx, reflexionConfig("0:10", map[string]any{"trials": 3, "memory_from": first.RunID}))
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := st.RunReflections(ctx, first.RunID)
	items, _ := st.Items(ctx, second.RunID)
	seen := 0
	for _, it := range items {
		calls, _ := st.Calls(ctx, second.RunID, it.Index)
		var req llm.Request
		if err := json.Unmarshal(calls[0].Request, &req); err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.InstanceKey != it.Key {
				continue
			}
			seen++
			if !strings.Contains(req.Messages[0].Content, "- "+r.Text) {
				t.Errorf("item %d: the first trial does not show run %d's reflection %q", it.Index, first.RunID, r.Text)
			}
		}
	}
	if seen != len(rs) {
		t.Errorf("%d of %d reflections checked", seen, len(rs))
	}
	if second.PerTrial[0] < first.PerTrial[0] {
		t.Errorf("starting from memory lowered trial-1 accuracy: %v vs %v", second.PerTrial, first.PerTrial)
	}

	// A memory that does not exist is an error, not an empty start.
	_, err = eng.Run(ctx, reflexionConfig("0:2", map[string]any{"memory_from": 999}))
	if err == nil || !strings.Contains(err.Error(), "memory_from") {
		t.Errorf("memory_from=999: %v", err)
	}
}

func TestSelfRefineSummaryHasPerIteration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := cotConfig(1, "900:910")
	cfg.Strategy, cfg.Params = "selfrefine", map[string]any{"iterations": 3}
	sum, err := (&Engine{Store: tempStore(t)}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.PerIteration) != 3 || sum.PerIteration[2] != sum.Accuracy || len(sum.PerTrial) != 0 {
		t.Errorf("per iteration %v, accuracy %v", sum.PerIteration, sum.Accuracy)
	}
	if _, ok := sum.Metrics["after_iteration_1"]; ok {
		t.Error("after_iteration_1 flattened into the metrics")
	}
}
