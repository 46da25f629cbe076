package results

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks/gsm8k"
)

// smallRuns stores a CoT and an IO run of the simulator on GSM8K 0:6, in an
// experiment whose file names cot as the baseline.
func smallRuns(t *testing.T) (*store.Store, []store.Run) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, s := range []string{"cot", "io"} {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Experiment, cfg.Baseline = "gsm8k", s, "0:6", "e", "cot"
		if _, err := (&bench.Engine{Store: st}).Run(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := st.Runs(ctx, store.RunFilter{Experiment: "e"})
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	return st, runs
}

func TestRunAnswers(t *testing.T) {
	st, runs := smallRuns(t)
	insts, err := gsm8k.NewTask().Instances()
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(context.Background(), runs[0].ID)
	if err != nil || len(items) != 6 {
		t.Fatalf("items %d, %v", len(items), err)
	}
	a := RunAnswers(cat, runs[0])
	if a.Err != nil {
		t.Fatal(a.Err)
	}
	task := gsm8k.NewTask()
	for _, it := range items {
		if got, want := a.Gold(it.Index), insts[it.Index].Gold; got != want || want == "" {
			t.Errorf("item %d: gold %q, want %q", it.Index, got, want)
		}
		if got, want := a.Extracted(it.Index, it.Output), task.Score(insts[it.Index], it.Output).Answer; got != want {
			t.Errorf("item %d: extracted %q, want the scorer's %q", it.Index, got, want)
		}
	}
	if a.Gold(99999) != "" || a.Extracted(99999, "Answer: 3") != "" {
		t.Error("an item the task does not have has answers")
	}
	// A run whose recorded task cannot be opened: no answers, and why.
	broken := runs[0]
	broken.Spec = json.RawMessage(`{"config": {"task": "file:/nowhere/gone.jsonl"}}`)
	b := RunAnswers(cat, broken)
	if b.Err == nil || b.Gold(0) != "" || b.Extracted(0, "Answer: 3") != "" {
		t.Errorf("a task that cannot be opened: err %v, gold %q", b.Err, b.Gold(0))
	}
}

func TestExperimentBaselineAndAddPaired(t *testing.T) {
	ctx := context.Background()
	st, runs := smallRuns(t)
	if got := ExperimentBaseline(runs); got != "cot" {
		t.Fatalf("ExperimentBaseline = %q, want cot", got)
	}
	if got := ExperimentBaseline([]store.Run{{Spec: json.RawMessage(`{}`)}}); got != "" {
		t.Fatalf("no baseline recorded: %q", got)
	}
	groups, err := Groups(ctx, st, cat, runs, render.Level)
	if err != nil || len(groups) != 2 {
		t.Fatalf("groups %d, %v", len(groups), err)
	}
	base, err := MatchBaseline(groups, "cot")
	if err != nil {
		t.Fatal(err)
	}
	if err := AddPaired(ctx, st, groups, base, render.Level); err != nil {
		t.Fatal(err)
	}
	other := 1 - base
	if !groups[base].IsBaseline || groups[base].VsBaseline != nil || groups[other].IsBaseline || groups[other].VsBaseline == nil {
		t.Fatalf("baseline marks: %+v", groups)
	}
	c := groups[other].VsBaseline
	if c.N != 6 || c.Baseline != groups[base].RunIDs[0] || c.Run != groups[other].RunIDs[0] {
		t.Fatalf("comparison %+v", c)
	}
	// The per-item scores it paired are the runs' items.
	scores, err := ItemScores(ctx, st, groups[other].RunIDs[0])
	if err != nil || len(scores) != 6 {
		t.Fatalf("ItemScores: %d, %v", len(scores), err)
	}
	sum := 0.0
	for _, v := range scores {
		sum += v
	}
	if sum/6 != c.Accuracy {
		t.Fatalf("accuracy %v, the items' mean %v", c.Accuracy, sum/6)
	}
}
