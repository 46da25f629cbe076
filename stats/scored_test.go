package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomScored is an item with k candidates over a few keys (some
// abstaining) and scores from a small set, so that ties happen.
func randomScored(rng *rand.Rand, k int) ScoredItem {
	it := ScoredItem{Keys: make([]int, k), Scores: make([]float64, k), Correct: make([]bool, k)}
	right := rng.IntN(3)
	for i := range k {
		it.Keys[i] = rng.IntN(4) - 1
		it.Scores[i] = float64(rng.IntN(5)) / 4
		it.Correct[i] = it.Keys[i] == right
	}
	return it
}

// bruteForce averages a pick over every k'-subset, built independently of
// the enumeration in scored.go (by bit masks).
func bruteForce(it ScoredItem, kp int, pick func(idx []int) int) float64 {
	k := len(it.Keys)
	right, total := 0, 0
	for mask := 0; mask < 1<<k; mask++ {
		var idx []int
		for i := range k {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		if len(idx) != kp {
			continue
		}
		total++
		if w := pick(idx); w >= 0 && it.Correct[w] {
			right++
		}
	}
	return float64(right) / float64(total)
}

func TestScoredCurveMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for n := range 200 {
		it := randomScored(rng, 1+rng.IntN(8))
		pts := ScoredCurve([]ScoredItem{it}, DefaultCurveOptions)
		for _, p := range pts {
			best := bruteForce(it, p.K, func(idx []int) int { return BestPick(it.Scores, idx) })
			weighted := bruteForce(it, p.K, func(idx []int) int { return WeightedPick(it.Keys, it.Scores, idx) })
			if math.Abs(p.Best-best) > 1e-12 || math.Abs(p.Weighted-weighted) > 1e-12 || !p.Exact {
				t.Fatalf("item %d %+v k'=%d: best %v weighted %v (exact %v), enumeration %v %v", n, it, p.K, p.Best, p.Weighted, p.Exact, best, weighted)
			}
		}
	}
}

// TestScoredCurveSampledWeighted: beyond MaxSubsets the weighted figure is
// estimated from random subsets, within a few standard errors of the
// exact one.
func TestScoredCurveSampledWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		it := randomScored(rng, 9)
		exact := ScoredCurve([]ScoredItem{it}, DefaultCurveOptions)
		est := ScoredCurve([]ScoredItem{it}, CurveOptions{MaxSubsets: 0, Draws: 4000, Seed: 1})
		for i := range exact {
			if est[i].Exact || est[i].Best != exact[i].Best {
				t.Fatalf("k'=%d: sampled run %+v, exact %+v", i+1, est[i], exact[i])
			}
			if d := math.Abs(est[i].Weighted - exact[i].Weighted); d > 4*est[i].WeightedSE+1e-9 {
				t.Errorf("k'=%d: estimate %v ± %v, exact %v", i+1, est[i].Weighted, est[i].WeightedSE, exact[i].Weighted)
			}
		}
	}
}

func TestWeightedAndBestPick(t *testing.T) {
	cases := []struct {
		keys           []int
		scores         []float64
		best, weighted int
	}{
		{[]int{0, 1, 0}, []float64{0.25, 0.875, 0.75}, 1, 0},
		{[]int{1, 0, 0, 1}, []float64{0.5, 0.5, 0.5, 0.5}, 0, 0},
		{[]int{-1, 1, 0, 0}, []float64{1, 0.25, 0.125, 0.0625}, 0, 1},
		{[]int{-1, -1}, []float64{0.25, 0.75}, 1, 1},
	}
	for _, c := range cases {
		idx := make([]int, len(c.keys))
		for i := range idx {
			idx[i] = i
		}
		if b, w := BestPick(c.scores, idx), WeightedPick(c.keys, c.scores, idx); b != c.best || w != c.weighted {
			t.Errorf("%v %v: best %d weighted %d, want %d %d", c.keys, c.scores, b, w, c.best, c.weighted)
		}
	}
}

// TestScoredCurveLargeN: with 1024 candidates the best rule's running
// product stays finite where the binomials would overflow, and a subset
// of 512 almost surely holds one of the top-scored (right) candidates.
func TestScoredCurveLargeN(t *testing.T) {
	it := ScoredItem{Keys: make([]int, 1024), Scores: make([]float64, 1024), Correct: make([]bool, 1024)}
	for i := range it.Scores {
		it.Keys[i] = i % 10
		it.Scores[i] = float64(i % 10)
		it.Correct[i] = i%10 == 9
	}
	pts := ScoredCurve([]ScoredItem{it}, CurveOptions{MaxSubsets: 100, Draws: 50, Seed: 1})
	if p := pts[511].Best; math.IsNaN(p) || math.Abs(p-1) > 1e-9 {
		t.Errorf("k=1024, k'=512: best %g; want 1 - C(922,512)/C(1024,512) ≈ 1", p)
	}
	if p := pts[0].Best; math.Abs(p-0.1) > 0.01 {
		t.Errorf("k'=1: best %g, want the share of right candidates (≈0.1)", p)
	}
	if p := pts[1023].Weighted; p != 1 {
		t.Errorf("k'=1024: weighted %g, want 1 (answer 9 sums highest)", p)
	}
}
