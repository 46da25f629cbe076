package stats

import (
	"math"
	"testing"
)

func TestWinner(t *testing.T) {
	all := func(n int) []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	cases := []struct {
		name string
		keys []int
		want int
	}{
		{"majority", []int{1, 2, 2}, 1},
		{"tie goes to the answer seen first", []int{3, 1, 1, 3}, 0},
		{"tie, the other order", []int{1, 3, 3, 1}, 0},
		{"abstentions never vote", []int{-1, -1, -1, 4, 5, 5}, 4},
		{"abstentions do not break a tie", []int{7, -1, -1, -1, 8}, 0},
		{"all abstain", []int{-1, -1}, -1},
	}
	for _, c := range cases {
		if got := Winner(c.keys, all(len(c.keys))); got != c.want {
			t.Errorf("%s: Winner(%v) = %d, want %d", c.name, c.keys, got, c.want)
		}
	}
}

// testItems are the items of stats/testdata/reference.py's vote curve.
var testItems = []VoteItem{
	{[]int{0, 1, 0, 2, 1, -1, 0}, []bool{true, false, true, false, false, false, true}},
	{[]int{0, 1, 2, 1, 2, 0}, []bool{false, true, false, true, false, false}},
	{[]int{-1, -1, 3, 3, 1}, []bool{false, false, true, true, false}},
	{[]int{-1, -1, -1, -1, 0, 1, 1, 0}, []bool{false, false, false, false, true, false, false, true}},
}

func TestVoteCurveExact(t *testing.T) {
	// python3 stats/testdata/reference.py | grep curve: every k'-subset
	// enumerated with itertools.combinations under the same rule.
	want := []struct{ vote, best float64 }{
		{0.3529761904761905, 0.3529761904761905},
		{0.5041666666666667, 0.6196428571428572},
		{0.5785714285714286, 0.8071428571428572},
		{0.6297619047619047, 0.9226190476190477},
		{0.6577380952380952, 0.9732142857142857},
		{0.4880952380952381, 0.9880952380952381},
		{0.875, 1.0},
		{1.0, 1.0},
	}
	pts := VoteCurve(testItems, DefaultCurveOptions)
	if len(pts) != len(want) {
		t.Fatalf("%d points, want %d", len(pts), len(want))
	}
	for i, p := range pts {
		if !p.Exact || p.VoteSE != 0 || !near(p.Vote, want[i].vote, 1e-12) || !near(p.BestOf, want[i].best, 1e-12) {
			t.Errorf("k'=%d: %+v, want vote %v best %v", p.K, p, want[i].vote, want[i].best)
		}
	}
}

// TestVoteCurveMonteCarlo forces random subsets and checks them against the
// exact values within four standard errors.
func TestVoteCurveMonteCarlo(t *testing.T) {
	exact := VoteCurve(testItems, DefaultCurveOptions)
	mc := VoteCurve(testItems, CurveOptions{MaxSubsets: 1, Draws: 20000, Seed: 7})
	for i, p := range mc {
		if p.K == 1 || p.K == len(mc) {
			continue // one subset or k subsets of one: still enumerated when C(k, k') <= 1
		}
		if p.Exact || p.VoteSE <= 0 {
			t.Errorf("k'=%d: want a Monte Carlo estimate with an error, got %+v", p.K, p)
		}
		if math.Abs(p.Vote-exact[i].Vote) > 4*p.VoteSE+1e-12 {
			t.Errorf("k'=%d: Monte Carlo %v ± %v, exact %v", p.K, p.Vote, p.VoteSE, exact[i].Vote)
		}
		if p.BestOf != exact[i].BestOf {
			t.Errorf("k'=%d: best-of %v, exact %v", p.K, p.BestOf, exact[i].BestOf)
		}
	}
}

func TestBestOfK(t *testing.T) {
	// 1 - C(k-c, k')/C(k, k'): math.comb in Python.
	cases := []struct {
		k, c, kp int
		want     float64
	}{
		{10, 0, 5, 0}, {10, 10, 1, 1}, {10, 3, 1, 0.3}, {10, 3, 2, 1 - 21.0/45}, {10, 3, 8, 1}, {100, 1, 50, 0.5},
	}
	for _, c := range cases {
		if got := BestOfK(c.k, c.c, c.kp); !near(got, c.want, 1e-12) {
			t.Errorf("BestOfK(%d, %d, %d) = %v, want %v", c.k, c.c, c.kp, got, c.want)
		}
	}
}

// TestVoteCurveStandardError: at a k' where one item is enumerated and
// another estimated, the standard error is the estimate's binomial error
// p(1-p)/draws, of the mean over both items.
func TestVoteCurveStandardError(t *testing.T) {
	item := func(k int) VoteItem {
		it := VoteItem{}
		for i := range k {
			it.Keys = append(it.Keys, i*7%3)
			it.Correct = append(it.Correct, i*7%3 == 0)
		}
		return it
	}
	small, big := item(12), item(30) // C(12, 10) = 66 subsets, C(30, 10) ≈ 3e7
	o := CurveOptions{MaxSubsets: 1000, Draws: 500, Seed: 3}
	const kp = 10
	both := VoteCurve([]VoteItem{small, big}, o)[kp-1]
	alone := VoteCurve([]VoteItem{small}, o)[kp-1]
	p := 2*both.Vote - alone.Vote // the estimate for big
	if both.Exact || !alone.Exact || p <= 0 || p >= 1 {
		t.Fatalf("k'=%d: %+v, alone %+v: want small enumerated, big estimated with 0 < p < 1", kp, both, alone)
	}
	if want := math.Sqrt(p*(1-p)/float64(o.Draws)) / 2; !near(both.VoteSE, want, 1e-12) {
		t.Errorf("standard error %v, want %v", both.VoteSE, want)
	}
}
