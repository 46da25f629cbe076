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
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
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
			rows, _, err := Budget(ctx, st, runs, BudgetOptions{Curves: true, Levels: tc.levels, Curve: stats.DefaultCurveOptions})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]report.BudgetRow{}
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

// TestBestExpected checks the closed form of best-of-N' against an
// enumeration of every subset, on items with ties, NaN scores and
// unanswered samples.
func TestBestExpected(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		correct []bool
		scores  []float64
	}{
		{"distinct", []bool{false, true, false, true, false}, []float64{0.9, 0.8, 0.5, 0.4, 0.1}},
		{"ties to the earliest", []bool{false, true, true, false}, []float64{0.5, 0.5, 0.5, 0.2}},
		{"tie, right first", []bool{true, false, false}, []float64{0.7, 0.7, 0.1}},
		{"NaN ranks last", []bool{true, false, true, false}, []float64{nan, 0.3, nan, 0.2}},
		{"all wrong", []bool{false, false, false}, []float64{1, 0.5, 0}},
		{"one sample", []bool{true}, []float64{0.2}},
	} {
		it := scoredItem{keys: make([]int, len(tc.correct)), correct: tc.correct, scores: tc.scores}
		k := len(tc.correct)
		for kp := 1; kp <= k; kp++ {
			right, total := 0, 0
			for mask := 0; mask < 1<<k; mask++ {
				var sub []int
				for i := range k {
					if mask&(1<<i) != 0 {
						sub = append(sub, i)
					}
				}
				if len(sub) != kp {
					continue
				}
				total++
				best := sub[0]
				for _, i := range sub[1:] {
					si, sb := tc.scores[i], tc.scores[best]
					if math.IsNaN(sb) && !math.IsNaN(si) || !math.IsNaN(si) && si > sb {
						best = i
					}
				}
				if tc.correct[best] {
					right++
				}
			}
			if got, want := bestExpected(it, kp), float64(right)/float64(total); math.Abs(got-want) > 1e-12 {
				t.Errorf("%s, N'=%d: %g, want %g", tc.name, kp, got, want)
			}
		}
	}
	// Large N: the running product stays finite where binomials overflow.
	big := scoredItem{keys: make([]int, 1024), correct: make([]bool, 1024), scores: make([]float64, 1024)}
	for i := range big.scores {
		big.scores[i] = float64(i % 10)
		big.correct[i] = i%10 == 9
	}
	if p := bestExpected(big, 512); math.IsNaN(p) || math.Abs(p-1) > 1e-9 {
		t.Errorf("k=1024, N'=512: %g; every subset's top score 9 is right (probability 1 - C(922,512)/C(1024,512) ≈ 1)", p)
	}
}

// TestWeightedWinner checks weighted best-of-N's choice on small cases.
func TestWeightedWinner(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keys   []int
		scores []float64
		want   int
	}{
		{"largest sum", []int{0, 1, 1}, []float64{0.9, 0.5, 0.5}, 1},
		{"tie to the answer seen first", []int{1, 0, 0}, []float64{0.6, 0.3, 0.3}, 0},
		{"abstaining samples do not count", []int{-1, 0, -1}, []float64{5, 0.1, 5}, 1},
		{"all abstain", []int{-1, -1}, []float64{1, 1}, -1},
		{"NaN adds nothing", []int{0, 1}, []float64{math.NaN(), 0.1}, 1},
		{"float sums, as search-and-learn adds them", []int{0, 0, 1}, []float64{0.1, 0.2, 0.3}, 0},
	} {
		it := scoredItem{keys: tc.keys, correct: make([]bool, len(tc.keys)), scores: tc.scores}
		idx := make([]int, len(tc.keys))
		for i := range idx {
			idx[i] = i
		}
		if got := weightedWinner(it, idx); got != tc.want {
			t.Errorf("%s: sample %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestWeightedExpectedSampled checks that the Monte Carlo estimate (more
// subsets than MaxSubsets: random permutations' prefixes, the pick kept
// up to date as samples join) is within four standard errors of the
// enumeration at every N'; at N' = N both are the pick over all samples.
func TestWeightedExpectedSampled(t *testing.T) {
	for _, it := range []scoredItem{
		{keys: []int{0, 1, 0, 2, 1, 0, -1, 2, 1, 0}, correct: []bool{true, false, true, false, false, true, false, false, false, true},
			scores: []float64{0.2, 0.9, 0.3, 0.5, 0.4, 0.1, 0.8, 0.7, 0.2, 0.6}},
		// Equal scores: the sums tie and the answer seen first in sample
		// order must win, whatever order the samples joined in.
		{keys: []int{1, 0, 1, 0, 2, 2, -1, 0, 1, 2}, correct: []bool{false, true, false, true, false, false, false, true, false, false},
			scores: []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}},
	} {
		weightedAgrees(t, it)
	}
}

func weightedAgrees(t *testing.T, it scoredItem) {
	t.Helper()
	var mc []float64
	for kp := 1; kp <= len(it.keys); kp++ {
		var none []float64
		exact, ok, _ := weightedExpected(it, kp, stats.CurveOptions{MaxSubsets: 1e6, Draws: 100, Seed: 1}, &none, 0)
		if !ok || none != nil {
			t.Fatalf("N'=%d: C(10,%d) subsets not enumerated", kp, kp)
		}
		est, ok, se := weightedExpected(it, kp, stats.CurveOptions{MaxSubsets: 0, Draws: 20000, Seed: 1}, &mc, 0)
		if ok || math.Abs(est-exact) > 4*se+1e-12 {
			t.Errorf("N'=%d: sampled %g ± %g (exact %v), enumerated %g", kp, est, se, ok, exact)
		}
	}
}

// labeledTask is a test task whose instances carry a level and a subject.
type labeledTask struct{ tasks.Task }

func (labeledTask) Instances() ([]tasks.Instance, error) {
	return []tasks.Instance{{Index: 3, Data: "1/algebra"}, {Index: 7, Data: "5/geometry"}, {Index: 9}}, nil
}
func (labeledTask) LabelKeys() []string { return []string{"level", "subject"} }
func (labeledTask) Labels(in tasks.Instance) map[string]string {
	s, _ := in.Data.(string)
	level, subject, ok := strings.Cut(s, "/")
	if !ok {
		return nil // an item without labels is left out of a split table
	}
	return map[string]string{"level": level, "subject": subject}
}

// unlabeledTask has no labels.
type unlabeledTask struct{ tasks.Task }

func TestLabelsOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		task tasks.Task
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
