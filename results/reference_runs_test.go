package results

import (
	"context"
	_ "embed"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// referenceRuns are three simulated runs on Game of 24 puzzles 900-919
// (CoT-SC k=5, CoT, IO), exported by the commands in
// testdata/reference_runs.py: each item's key, verdict and tokens, and
// each CoT-SC sample's vote key and verdict.
//
//go:embed testdata/reference_runs.json
var referenceRuns []byte

type refRuns struct {
	Runs []struct {
		ID        int64           `json:"id"`
		Task      string          `json:"task"`
		Strategy  string          `json:"strategy"`
		Params    json.RawMessage `json:"params"`
		Model     string          `json:"model"`
		Simulated bool            `json:"simulated"`
		Seed      int64           `json:"seed"`
		Range     string          `json:"range"`
		Items     []struct {
			Idx              int     `json:"idx"`
			Key              string  `json:"key"`
			Correct          bool    `json:"correct"`
			Score            float64 `json:"score"`
			PromptTokens     int     `json:"prompt_tokens"`
			CompletionTokens int     `json:"completion_tokens"`
			Samples          []struct {
				Key     *string `json:"key"`
				Correct bool    `json:"correct"`
			} `json:"samples"`
		} `json:"items"`
	} `json:"runs"`
}

// referenceStore puts the reference runs in a fresh SQLite store as the
// engine records them: a CoT-SC item's detail holds the vote's keys and
// the samples' verdicts, which is what results.VoteCurve reads.
func referenceStore(t *testing.T) *store.Store {
	t.Helper()
	return storeOfRuns(t, referenceRuns)
}

// storeOfRuns stores exported runs (refRuns' shape) in a fresh store,
// each under its own id.
func storeOfRuns(t *testing.T, data []byte) *store.Store {
	t.Helper()
	var ref refRuns
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ref.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, r := range ref.Runs {
		id, err := st.CreateRun(ctx, store.Run{Task: r.Task, Strategy: r.Strategy, Params: r.Params, Model: r.Model,
			Simulated: r.Simulated, Seed: r.Seed, Range: r.Range})
		if err != nil {
			t.Fatal(err)
		}
		if id != r.ID {
			t.Fatalf("run %d stored as %d: the reference values name runs by their ids", r.ID, id)
		}
		for _, it := range r.Items {
			detail := json.RawMessage("{}")
			if len(it.Samples) > 0 {
				var d struct {
					Vote struct {
						Keys []*string `json:"keys"`
					} `json:"vote"`
					Samples []map[string]bool `json:"samples"`
				}
				for _, s := range it.Samples {
					d.Vote.Keys = append(d.Vote.Keys, s.Key)
					d.Samples = append(d.Samples, map[string]bool{"correct": s.Correct})
				}
				if detail, err = json.Marshal(d); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.PutItem(ctx, store.Item{RunID: id, Index: it.Idx, Key: it.Key, Input: it.Key, Correct: it.Correct,
				Score: it.Score, Detail: detail, PromptTokens: it.PromptTokens, CompletionTokens: it.CompletionTokens, Calls: 1}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.FinishRun(ctx, id, store.StatusDone, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

const refTol = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= refTol }

// TestReferenceCompare feeds the reference runs through what `bench
// compare` does (results.Groups, then results.Compare with the first run
// given as the baseline) and checks every figure against the values
// `python3 results/testdata/reference_runs.py` computed beforehand for
// `bin/bench compare --db /tmp/ref.db 2 1 3 --format json`: McNemar's p
// as scipy.stats.binomtest on the discordant items, in exact rationals;
// Holm's over the table's two comparisons; Newcombe's paired interval from
// the paper's formulas. Broken on purpose, it fails with a one-sided
// McNemar, with Holm's factor dropped and with Newcombe's correlation term
// uncorrected; this table (p = 3/8 and 1) cannot tell Holm from
// Bonferroni, which stats' TestHolm does.
func TestReferenceCompare(t *testing.T) {
	ctx := context.Background()
	st := referenceStore(t)
	var runs []store.Run
	for _, id := range []int64{2, 1, 3} {
		r, err := st.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	groups, err := Groups(ctx, st, cat, runs, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Compare(ctx, st, groups, GroupOfRun(groups, 2), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// From reference_runs.py; the fractions are exact.
	want := []struct {
		run                      int64
		n, runOnly, baselineOnly int
		acc, baseAcc             float64
		p, pHolm                 float64
		lo, hi                   float64
	}{
		// CoT-SC k=5 (1/10) against CoT (1/4): both 1, run only 1,
		// baseline only 4, neither 14. p = 2·(1+5)/2^5 = 3/8; Holm
		// 2·3/8 = 3/4 (the smaller of the two p-values, times 2).
		{1, 20, 1, 4, 0.1, 0.25, 0.375, 0.75, -0.3802896402439599, 0.0939194868226772},
		// IO (1/4) against CoT (1/4): both 3, run only 2, baseline only
		// 2, neither 13. p = 1; Holm max(3/4, 1·1) = 1.
		{3, 20, 2, 2, 0.25, 0.25, 1, 1, -0.2162674701673632, 0.2162674701673632},
	}
	if len(cs) != len(want) {
		t.Fatalf("%d comparisons, want %d", len(cs), len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Run != w.run || c.Baseline != 2 || c.N != w.n || c.RunOnly != w.runOnly || c.BaselineOnly != w.baselineOnly {
			t.Errorf("comparison %d: run %d vs %d, n %d, discordant %d/%d; want run %d vs 2, n %d, discordant %d/%d",
				i, c.Run, c.Baseline, c.N, c.RunOnly, c.BaselineOnly, w.run, w.n, w.runOnly, w.baselineOnly)
		}
		if c.CIMethod != stats.MethodNewcombe || c.Test != stats.NameMcNemar {
			t.Errorf("run %d: %s, %s; want Newcombe's paired interval and exact McNemar", w.run, c.CIMethod, c.Test)
		}
		for _, f := range []struct {
			name      string
			got, want float64
		}{
			{"accuracy", c.Accuracy, w.acc}, {"baseline accuracy", c.BaselineAccuracy, w.baseAcc},
			{"difference", c.Difference, w.acc - w.baseAcc},
			{"McNemar p", c.P, w.p}, {"Holm p", c.PHolm, w.pHolm}, {"CI low", c.Low, w.lo}, {"CI high", c.High, w.hi},
		} {
			if !near(f.got, f.want) {
				t.Errorf("run %d: %s %.12g, want %.12g (reference_runs.py)", w.run, f.name, f.got, f.want)
			}
		}
		if c.Low > c.Difference || c.Difference > c.High {
			t.Errorf("run %d: interval [%g, %g] misses the difference %g", w.run, c.Low, c.High, c.Difference)
		}
	}
}

// TestReferenceVoteCurve feeds the reference CoT-SC run through what
// `bench report --by k` does (bench.Summarize, results.RowOf, then
// results.VoteCurve with stats.DefaultCurveOptions) and checks each k”s
// row against the values `python3 results/testdata/reference_runs.py`
// computed beforehand for `bin/bench report --db /tmp/ref.db --by k --runs
// 1 --format json`, by enumerating every k'-subset of every item's five
// samples with itertools.combinations under CoT-SC's vote rule written
// afresh, in exact rationals. Broken on purpose, it fails with ties going
// to the key seen last and with every k' charged all k completions. No
// sample of this run abstains, so abstention is left to stats' vote
// tests.
func TestReferenceVoteCurve(t *testing.T) {
	ctx := context.Background()
	st := referenceStore(t)
	s, err := bench.Summarize(ctx, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows, note, ok, err := VoteCurve(ctx, st, RowOf(s), stats.DefaultCurveOptions)
	if err != nil || !ok {
		t.Fatalf("VoteCurve: ok %v, %v", ok, err)
	}
	if note != "" {
		t.Errorf("note %q: the reference run records its vote keys", note)
	}
	// From reference_runs.py (exact fractions: vote 13/100, 11/100, 9/100,
	// 9/100, 1/10; best-of 13/100, 1/4, 9/25, 23/50, 11/20; tokens 6776/25,
	// 7652/25, 8528/25, 9404/25, 2056/5).
	want := []struct{ vote, bestOf, tokens float64 }{
		{0.13, 0.13, 271.04},
		{0.11, 0.25, 306.08},
		{0.09, 0.36, 341.12},
		{0.09, 0.46, 376.16},
		{0.1, 0.55, 411.2},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want one per k' = 1..%d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r.Step != i+1 || r.Ran != 20 || r.RunID != 1 {
			t.Errorf("row %d: run %d, k' %d over %d items; want run 1, k' %d over 20", i, r.RunID, r.Step, r.Ran, i+1)
		}
		if r.Exact == nil || !*r.Exact || r.BestOf == nil || r.TokensPerItem == nil {
			t.Fatalf("k'=%d: exact %v, best_of %v, tokens %v: want an enumerated row with both", i+1, r.Exact, r.BestOf, r.TokensPerItem)
		}
		if !near(r.Accuracy, w.vote) || !near(*r.BestOf, w.bestOf) || !near(*r.TokensPerItem, w.tokens) {
			t.Errorf("k'=%d: vote %.12g, best-of %.12g, tokens %.12g; want %.12g, %.12g, %.12g (reference_runs.py)",
				i+1, r.Accuracy, *r.BestOf, *r.TokensPerItem, w.vote, w.bestOf, w.tokens)
		}
	}
	// At k' = k the curve is the run's own accuracy.
	if last := rows[len(rows)-1]; !near(last.Accuracy, s.Accuracy) {
		t.Errorf("vote at k'=k %.12g, the run's accuracy %.12g", last.Accuracy, s.Accuracy)
	}
}
