package results

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// budgetRuns is the declared synthetic fixture of testdata/budget_runs.py
// (three runs over twelve problems: CoT-SC k=8, best-of-N with verifier
// scores and verifier calls, CoT with a judge call), and budgetExpected
// what that script computed from it beforehand, in exact fractions.
//
//go:embed testdata/budget_runs.json
var budgetRuns []byte

//go:embed testdata/budget_expected.json
var budgetExpected []byte

type budgetFixture struct {
	Runs []struct {
		ID       int64  `json:"id"`
		Strategy string `json:"strategy"`
		Items    []struct {
			Idx     int    `json:"idx"`
			Level   string `json:"level"`
			Correct bool   `json:"correct"`
			Calls   []struct {
				Purpose    string `json:"purpose"`
				Prompt     int    `json:"prompt"`
				Completion int    `json:"completion"`
			} `json:"calls"`
			Samples []struct {
				Answer  string   `json:"answer"`
				Key     *string  `json:"key"`
				Correct bool     `json:"correct"`
				Score   *float64 `json:"score,omitempty"`
			} `json:"samples"`
		} `json:"items"`
	} `json:"runs"`
}

type budgetWant struct {
	Level     string `json:"level"`
	Run       int64  `json:"run"`
	Select    string `json:"select"`
	K         int    `json:"k"`
	Items     int    `json:"items"`
	Accuracy  string `json:"accuracy"`
	Generated string `json:"generated"`
	Verifier  string `json:"verifier"`
}

// budgetStore stores the fixture as the engine would: items with the
// CoT-SC detail shape (vote keys, samples; best-of-N's samples with their
// score) and every call with its purpose and usage. It returns the runs
// and the fixture's "level" labels.
func budgetStore(t *testing.T) (*store.Store, []store.Run, map[int]string) {
	t.Helper()
	var fx budgetFixture
	if err := json.Unmarshal(budgetRuns, &fx); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "budget.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	labels := map[int]string{}
	var runs []store.Run
	for _, r := range fx.Runs {
		id, err := st.CreateRun(ctx, store.Run{Task: "synthetic", Strategy: r.Strategy, Params: json.RawMessage(`{}`), Model: "fixture", Range: "0:12"})
		if err != nil || id != r.ID {
			t.Fatalf("run %d stored as %d: %v", r.ID, id, err)
		}
		for _, it := range r.Items {
			labels[it.Idx] = it.Level
			detail := json.RawMessage("{}")
			if len(it.Samples) > 0 {
				var d struct {
					Vote struct {
						Keys []*string `json:"keys"`
					} `json:"vote"`
					Samples []map[string]any `json:"samples"`
				}
				for _, s := range it.Samples {
					d.Vote.Keys = append(d.Vote.Keys, s.Key)
					m := map[string]any{"answer": s.Answer, "correct": s.Correct}
					if s.Score != nil {
						m["score"] = *s.Score
					}
					d.Samples = append(d.Samples, m)
				}
				if detail, err = json.Marshal(d); err != nil {
					t.Fatal(err)
				}
			}
			log := st.CallLog(id, it.Idx)
			prompt, completion := 0, 0
			for _, c := range it.Calls {
				log.Add(store.Call{Purpose: c.Purpose, PromptTokens: c.Prompt, CompletionTokens: c.Completion, Requests: 1})
				prompt, completion = prompt+c.Prompt, completion+c.Completion
			}
			if err := log.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if err := st.PutItem(ctx, store.Item{RunID: id, Index: it.Idx, Key: fmt.Sprint(it.Idx), Correct: it.Correct, Detail: detail,
				PromptTokens: prompt, CompletionTokens: completion, Calls: len(it.Calls)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.FinishRun(ctx, id, store.StatusDone, 0, ""); err != nil {
			t.Fatal(err)
		}
		run, err := st.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	return st, runs, labels
}

func ratio(t *testing.T, s string) float64 {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("bad fraction %q in budget_expected.json", s)
	}
	f, _ := r.Float64()
	return f
}

// TestBudgetReference checks results.Budget — what bench report --by
// budget prints, alone, with --by level and with --by difficulty — row by
// row against testdata/budget_runs.py's enumeration of every N'-subset in
// exact fractions. Broken on purpose it fails: with best's ties going to
// the last sample (ranking by a non-stable sort with reversed ties), with
// weighted's ties going to the answer seen last, with verifier tokens
// counted as generated, with the judge's tokens counted, with N' tokens
// not scaled by N'/N, and with the difficulty cut at "<=" instead of "<".
func TestBudgetReference(t *testing.T) {
	ctx := context.Background()
	st, runs, labels := budgetStore(t)
	var want map[string]json.RawMessage
	if err := json.Unmarshal(budgetExpected, &want); err != nil {
		t.Fatal(err)
	}
	diff, err := PassRateLevels(ctx, st, runs[0])
	if err != nil {
		t.Fatal(err)
	}
	var cuts []string
	if err := json.Unmarshal(want["difficulty_cuts"], &cuts); err != nil {
		t.Fatal(err)
	}
	for i, c := range cuts {
		if math.Abs(diff.Cuts[i]-ratio(t, c)) > 1e-12 {
			t.Errorf("difficulty cut %d: %g, want %s (statistics.quantiles, inclusive)", i, diff.Cuts[i], c)
		}
	}
	for _, tc := range []struct {
		name   string
		levels LevelsOf
	}{
		{"unsplit", nil},
		{"level", func(context.Context, store.Run) (Levels, error) { return Levels{Key: "level", Of: labels}, nil }},
		{"difficulty", func(context.Context, store.Run) (Levels, error) { return diff.Levels, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var exp []budgetWant
			if err := json.Unmarshal(want[tc.name], &exp); err != nil {
				t.Fatal(err)
			}
			rows, _, err := Budget(ctx, st, cat, runs, BudgetOptions{Curves: true, Levels: tc.levels, Curve: stats.DefaultCurveOptions})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]render.BudgetRow{}
			for _, r := range rows {
				got[fmt.Sprintf("%s/%d/%s/%d", r.Level, r.RunID, r.Select, r.K)] = r
			}
			if len(got) != len(rows) || len(rows) != len(exp) {
				t.Fatalf("%d rows (%d distinct), want %d", len(rows), len(got), len(exp))
			}
			for _, w := range exp {
				key := fmt.Sprintf("%s/%d/%s/%d", w.Level, w.Run, w.Select, w.K)
				r, ok := got[key]
				if !ok {
					t.Errorf("no row %s", key)
					continue
				}
				if !r.Exact || r.Items != w.Items {
					t.Errorf("%s: %d items, exact %v; want %d, exact", key, r.Items, r.Exact, w.Items)
				}
				for _, f := range []struct {
					name string
					got  float64
					want string
				}{{"accuracy", r.Accuracy, w.Accuracy}, {"generated tokens", r.GeneratedTokens, w.Generated}, {"verifier tokens", r.VerifierTokens, w.Verifier}} {
					if math.Abs(f.got-ratio(t, f.want)) > 1e-9 {
						t.Errorf("%s: %s %.12g, want %s = %.12g (budget_runs.py)", key, f.name, f.got, f.want, ratio(t, f.want))
					}
				}
				if r.Estimated != (w.K > 0 && w.K < r.KOf) {
					t.Errorf("%s: estimated %v with N'=%d of %d", key, r.Estimated, w.K, r.KOf)
				}
			}
		})
	}
}

// labeledTask is a test task whose items carry a level and a subject
// (item 9 none).
type labeledTask struct{ runinfo.Task }

func (labeledTask) LabelKeys() []string { return []string{"level", "subject"} }
func (labeledTask) Labels(key string) map[int]string {
	return map[string]map[int]string{"level": {3: "1", 7: "5"}, "subject": {3: "algebra", 7: "geometry"}}[key]
}

// unlabeledTask has no labels.
type unlabeledTask struct{ runinfo.Task }

func (unlabeledTask) LabelKeys() []string { return nil }

func TestLabelsOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		task runinfo.Task
		key  string
		want map[int]string
		err  error
	}{
		{"the first label by default", labeledTask{}, "", map[int]string{3: "1", 7: "5"}, nil},
		{"a named label", labeledTask{}, "subject", map[int]string{3: "algebra", 7: "geometry"}, nil},
		{"an unknown label", labeledTask{}, "source", nil, ErrNoLabel},
		{"no labels", unlabeledTask{}, "", nil, ErrNotLabeled},
	} {
		lv, err := labelsOf(tc.task, tc.key)
		if !errors.Is(err, tc.err) || tc.err == nil && !maps.Equal(lv.Of, tc.want) {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, lv.Of, err, tc.want, tc.err)
		}
	}
}
