package results

import (
	"context"
	_ "embed"
	"encoding/json"
	"math"
	"testing"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// intervalRuns are two exported simulated runs on Game of 24 900-999 (io
// k=10, whose items score the mean of 10 samples; cot, 0/1) with the
// intervals scipy gives for them, written by testdata/interval_runs.py.
//
//go:embed testdata/interval_runs.json
var intervalRuns []byte

// TestIntervalsAgreeWithScipy: what bench report shows for each run
// (results.Row, then Row.CI) and what bench compare shows for the pair
// (results.Compare) are the intervals scipy computes for their kinds of
// score: Student-t over the item scores for io k=10, Wilson for cot, the
// paired t for the comparison, report and compare agreeing that io k=10's
// scores are not 0/1. Broken on purpose, it fails with Wilson on
// accuracy·n for the mean scores (the interval 2.7 times wider), with the
// normal quantile in place of t's, and with the kind read as 0/1.
func TestIntervalsAgreeWithScipy(t *testing.T) {
	var ref struct {
		Scipy struct {
			Run1T struct {
				Mean, Low, High float64
				N               int
			} `json:"run1_t"`
			Run2Wilson struct {
				Successes, N int
				Low, High    float64
			} `json:"run2_wilson"`
			PairedT struct {
				N                        int
				Difference, P, Low, High float64
			} `json:"paired_t"`
		} `json:"scipy"`
	}
	if err := json.Unmarshal(intervalRuns, &ref); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := storeOfRuns(t, intervalRuns)
	var rows []render.Row
	var runs []store.Run
	for _, id := range []int64{1, 2} {
		r, err := st.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		row, _, err := Row(ctx, st, cat, r)
		if err != nil {
			t.Fatal(err)
		}
		rows, runs = append(rows, row), append(runs, r)
	}
	const tol = 1e-9
	close := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.12g, scipy %.12g", name, got, want)
		}
	}
	s := ref.Scipy
	iv := rows[0].CI()
	if rows[0].ScoreKind != render.ScoreMean || iv.Method != render.MethodItemsT || iv.N != s.Run1T.N {
		t.Errorf("io k=10: kind %q, interval %s; want t over %d items", rows[0].ScoreKind, iv.Describe(), s.Run1T.N)
	}
	close("io k=10 accuracy", rows[0].Accuracy, s.Run1T.Mean)
	close("io k=10 CI low", iv.Low, s.Run1T.Low)
	close("io k=10 CI high", iv.High, s.Run1T.High)
	iv = rows[1].CI()
	if rows[1].ScoreKind != render.ScoreBinary || iv.Method != render.MethodWilson || iv.N != s.Run2Wilson.N {
		t.Errorf("cot: kind %q, interval %s; want Wilson over %d items", rows[1].ScoreKind, iv.Describe(), s.Run2Wilson.N)
	}
	close("cot CI low", iv.Low, s.Run2Wilson.Low)
	close("cot CI high", iv.High, s.Run2Wilson.High)

	groups, err := Groups(ctx, st, cat, runs, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if groups[0].CI != rows[0].CI() || groups[1].CI != rows[1].CI() {
		t.Errorf("experiment table intervals %+v %+v differ from report's %+v %+v", groups[0].CI, groups[1].CI, rows[0].CI(), rows[1].CI())
	}
	cs, err := Compare(ctx, st, groups, 1, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if c.CIMethod != stats.MethodPairedT || c.N != s.PairedT.N {
		t.Errorf("compare: %s over %d items; want the paired t over %d, as report reads io k=10's scores", c.CIMethod, c.N, s.PairedT.N)
	}
	close("difference", c.Difference, s.PairedT.Difference)
	close("paired p", c.P, s.PairedT.P)
	close("paired CI low", c.Low, s.PairedT.Low)
	close("paired CI high", c.High, s.PairedT.High)
}
