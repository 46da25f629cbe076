package render

import (
	"math"
	"strings"
	"testing"
)

func TestWilson(t *testing.T) {
	cases := []struct {
		succ     float64
		n        int
		low, hi  float64
		describe string
	}{
		{8, 10, 0.490, 0.943, "Wilson, 10 items"},
		{0, 10, 0, 0.278, "Wilson, 10 items"},
		{10, 10, 0.722, 1, "Wilson, 10 items"},
		{50, 100, 0.404, 0.596, "Wilson, 100 items"},
		{1, 5, 0.036, 0.624, "Wilson, 5 items"},
		{0, 0, 0, 1, "Wilson, 0 items"},
	}
	for _, c := range cases {
		iv := Wilson(c.succ, c.n, 0.95)
		if math.Abs(iv.Low-c.low) > 5e-4 || math.Abs(iv.High-c.hi) > 5e-4 {
			t.Errorf("Wilson(%v/%d) = [%.4f, %.4f], want [%.3f, %.3f]", c.succ, c.n, iv.Low, iv.High, c.low, c.hi)
		}
		if iv.Method != MethodWilson || iv.Describe() != c.describe || iv.Level != 0.95 {
			t.Errorf("Wilson(%v/%d): %+v %q", c.succ, c.n, iv, iv.Describe())
		}
	}
}

func TestTQuantile(t *testing.T) {
	cases := []struct{ p, df, want float64 }{
		{0.975, 1, 12.706},
		{0.975, 2, 4.303},
		{0.975, 4, 2.776},
		{0.975, 10, 2.228},
		{0.975, 30, 2.042},
		{0.95, 5, 2.015},
		{0.995, 2, 9.925},
		{0.9995, 1, 636.619},
		{0.975, 1e6, 1.960},
		{0.025, 4, -2.776},
		{0.5, 3, 0},
	}
	for _, c := range cases {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > 5e-4*math.Max(1, math.Abs(c.want)) {
			t.Errorf("t(%v, %v) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
	}
	if !math.IsNaN(TQuantile(1, 3)) || !math.IsNaN(TQuantile(0.9, 0)) {
		t.Error("out-of-domain quantiles should be NaN")
	}
	if got := NormalQuantile(0.975); math.Abs(got-1.959964) > 1e-6 {
		t.Errorf("z(0.975) = %v", got)
	}
}

func TestStudentT(t *testing.T) {
	cases := []struct {
		name     string
		values   []float64
		mean     float64
		low, hi  float64
		describe string
	}{
		{"three runs", []float64{0.6, 0.7, 0.8}, 0.7, 0.4516, 0.9484, "Student-t, 3 runs (df=2)"},
		{"equal runs", []float64{0.5, 0.5}, 0.5, 0.5, 0.5, "Student-t, 2 runs (df=1)"},
		{"clipped", []float64{0.9, 1.0}, 0.95, 0.3147, 1, "Student-t, 2 runs (df=1)"},
		{"one run: vacuous", []float64{0.3}, 0.3, 0, 1, "Student-t, 1 runs (df=0)"},
	}
	for _, c := range cases {
		mean, iv := StudentT(c.values, 0.95)
		if math.Abs(mean-c.mean) > 1e-9 || math.Abs(iv.Low-c.low) > 5e-4 || math.Abs(iv.High-c.hi) > 5e-4 {
			t.Errorf("%s: mean %.4f [%.4f, %.4f], want %.4f [%.4f, %.4f]", c.name, mean, iv.Low, iv.High, c.mean, c.low, c.hi)
		}
		if iv.Describe() != c.describe {
			t.Errorf("%s: %q", c.name, iv.Describe())
		}
	}
}

// TestIntervalByScoreKind: a run table names its interval in the column,
// Wilson for 0/1 items and t for mean scores, each cell named when the rows
// differ, CSV in a ci_method column, with a legend saying what accuracy is
// for mean scores and for cotsc's vote.
func TestIntervalByScoreKind(t *testing.T) {
	binary := Row{RunID: 1, Strategy: "cot", N: 100, Accuracy: 0.21, Status: "done"}
	vote := Row{RunID: 3, Strategy: "cotsc", N: 100, Accuracy: 0.16, Status: "done", ScoreKind: ScoreBinary}
	mean := Row{RunID: 2, Strategy: "io", N: 100, Accuracy: 0.178, Status: "done", ScoreKind: ScoreMean, ItemSD: 0.14}
	if iv := mean.CI(); iv.Method != MethodItemsT || iv.Name() != "t" || iv.High-iv.Low > 0.06 {
		t.Errorf("mean scores: %+v, want t over items, narrower than Wilson's", iv)
	}
	if iv := binary.CI(); iv.Method != MethodWilson || iv.Name() != "Wilson" {
		t.Errorf("0/1 scores: %+v", iv)
	}
	for _, c := range []struct {
		rows      []Row
		format    string
		want, not []string
	}{
		{[]Row{binary}, "md", []string{"95% CI (Wilson)"}, []string{AccuracyMeanNote, "] Wilson"}},
		{[]Row{mean}, "md", []string{"95% CI (t)", "[0.150, 0.206]", AccuracyMeanNote}, []string{"Wilson", AccuracyVoteNote}},
		{[]Row{binary, mean, vote}, "md", []string{"| 95% CI ", "] Wilson", "] t", AccuracyMeanNote, AccuracyVoteNote}, []string{"95% CI (Wilson)", "95% CI (t)"}},
		{[]Row{binary, mean}, "csv", []string{"ci_method", "," + MethodItemsT + ",", "," + MethodWilson + ","}, nil},
		{[]Row{binary, mean}, "latex", []string{"Wilson score interval over the n items", "Student-t over the n item scores"}, nil},
	} {
		var b strings.Builder
		if err := Write(&b, c.format, c.rows); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s of %d rows lacks %q:\n%s", c.format, len(c.rows), w, b.String())
			}
		}
		for _, w := range c.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("%s of %d rows has %q:\n%s", c.format, len(c.rows), w, b.String())
			}
		}
	}
}
