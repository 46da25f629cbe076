package results

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// TestGroupCurve: a configuration of one CoT-SC run has that run's vote
// curve; a configuration without samples has none.
func TestGroupCurve(t *testing.T) {
	ctx := context.Background()
	st := referenceStore(t)
	runs := make([]store.Run, 3)
	for i := range runs {
		r, err := st.GetRun(ctx, int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = r
	}
	groups, err := Groups(ctx, st, cat, runs, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	cotsc := groups[GroupOfRun(groups, 1)]
	curve, err := GroupCurve(ctx, st, cotsc)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, ok, err := VoteCurve(ctx, st, cotsc.Runs[0], stats.DefaultCurveOptions)
	if err != nil || !ok || len(curve) != len(rows) || len(curve) != 5 {
		t.Fatalf("curve of %d points, run's %d (%v %v); want 5 (k'=1..5)", len(curve), len(rows), ok, err)
	}
	for i, p := range curve {
		if p.K != rows[i].Step || math.Abs(p.Accuracy-rows[i].Accuracy) > 1e-12 || rows[i].TokensPerItem == nil || math.Abs(p.Tokens-*rows[i].TokensPerItem) > 1e-9 {
			t.Errorf("point %d %+v, run's row %+v", i, p, rows[i])
		}
	}
	if c, err := GroupCurve(ctx, st, groups[GroupOfRun(groups, 2)]); err != nil || c != nil {
		t.Errorf("cot's curve %v %v, want none", c, err)
	}
}

// TestMostSampled: the CoT-SC run (5 samples an item) among runs that keep
// none; none among runs without samples.
func TestMostSampled(t *testing.T) {
	ctx := context.Background()
	st := referenceStore(t)
	get := func(ids ...int64) []store.Run {
		var out []store.Run
		for _, id := range ids {
			r, err := st.GetRun(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	if r, ok, err := MostSampled(ctx, st, get(2, 1, 3)); err != nil || !ok || r.ID != 1 {
		t.Errorf("most sampled of 2, 1, 3: run %d %v %v; want 1", r.ID, ok, err)
	}
	if _, ok, err := MostSampled(ctx, st, get(2, 3)); err != nil || ok {
		t.Errorf("runs without samples: ok %v %v", ok, err)
	}
}

// TestTaskLabels reads MATH-500's levels from a run's recorded task, and
// says which label is missing or that a task has none.
func TestTaskLabels(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "l.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var runs []store.Run
	for _, task := range []string{"math500", "game24"} {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = task, "io", "0:3"
		sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := st.GetRun(ctx, sum.RunID)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	lv, err := TaskLabels(cat, "")(ctx, runs[0])
	if err != nil || lv.Key != "level" || len(lv.Of) != 500 || lv.Of[0] != "2" {
		t.Errorf("math500's first label: %s, %d items, item 0 %q, %v; want level, 500, 2", lv.Key, len(lv.Of), lv.Of[0], err)
	}
	if lv, err := TaskLabels(cat, "subject")(ctx, runs[0]); err != nil || lv.Of[0] != "Precalculus" {
		t.Errorf("subject of item 0: %q %v", lv.Of[0], err)
	}
	if _, err := TaskLabels(cat, "colour")(ctx, runs[0]); !errors.Is(err, ErrNoLabel) {
		t.Errorf("an unknown label: %v", err)
	}
	if _, err := TaskLabels(cat, "")(ctx, runs[1]); !errors.Is(err, ErrNotLabeled) {
		t.Errorf("game24 has no labels: %v", err)
	}
	if _, err := TaskLabels(cat, "")(ctx, store.Run{ID: 9, Spec: json.RawMessage(`{"config":{"task":"nosuch"}}`)}); err == nil {
		t.Error("a run whose task cannot be opened gave labels")
	}
}
