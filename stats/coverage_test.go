package stats

import (
	"math/rand/v2"
	"testing"
)

// TestCoverage draws many seeded pairs of runs on the same items from a
// known population of paired outcomes (both right 45%, only A 15%, only B
// 7%: a true difference of 0.08, with the correlation runs on the same
// items have) and checks that the paired 95% interval covers the true
// difference in 95% ± 2% of them, and is narrower than the interval that
// ignores the pairing.
func TestCoverage(t *testing.T) {
	const reps, n = 4000, 100
	p11, p10, p01 := 0.45, 0.15, 0.07
	truth := p10 - p01
	rng := rand.New(rand.NewPCG(20, 1))
	covered, covUnpaired := 0, 0
	var width, widthUnpaired float64
	for range reps {
		run, base := make([]float64, n), make([]float64, n)
		for i := range n {
			switch u := rng.Float64(); {
			case u < p11:
				run[i], base[i] = 1, 1
			case u < p11+p10:
				run[i] = 1
			case u < p11+p10+p01:
				base[i] = 1
			}
		}
		c := ComparePaired(run, base, true, 0.95)
		if c.Low <= truth && truth <= c.High {
			covered++
		}
		width += c.High - c.Low
		tab := Table2x2{AOnly: c.RunOnly, BOnly: c.BaselineOnly}
		for i := range n {
			if run[i] == 1 && base[i] == 1 {
				tab.Both++
			} else if run[i] == 0 && base[i] == 0 {
				tab.Neither++
			}
		}
		lo, hi := NewcombeUnpaired(tab, 0.95)
		if lo <= truth && truth <= hi {
			covUnpaired++
		}
		widthUnpaired += hi - lo
	}
	cov := float64(covered) / reps
	if cov < 0.93 || cov > 0.97 {
		t.Errorf("paired interval covered the true difference in %.3f of %d pairs of runs, want 0.95 ± 0.02", cov, reps)
	}
	if width >= widthUnpaired {
		t.Errorf("paired interval mean width %.4f, unpaired %.4f: pairing should narrow it", width/reps, widthUnpaired/reps)
	}
	t.Logf("coverage paired %.3f (mean width %.4f), unpaired %.3f (mean width %.4f)",
		cov, width/reps, float64(covUnpaired)/reps, widthUnpaired/reps)
}

// TestCoverageRepeats does the same for configurations run three times
// each: items differ in difficulty, each run answers an item right with the
// item's probability, and the comparison pools the repeats per item
// (ItemMeans) before pairing. The true difference is the population mean of
// the items' probabilities' difference.
func TestCoverageRepeats(t *testing.T) {
	const reps, n, repeats = 2000, 80, 3
	rng := rand.New(rand.NewPCG(20, 2))
	// Item i's probabilities: base q, run q + 0.1 capped, q ~ U(0, 0.9),
	// so the true difference is E[min(q+0.1, 1) − q] = 0.1.
	const truth = 0.1
	covered := 0
	for range reps {
		runScores := make([]map[string]float64, repeats)
		baseScores := make([]map[string]float64, repeats)
		for r := range repeats {
			runScores[r], baseScores[r] = map[string]float64{}, map[string]float64{}
		}
		for i := range n {
			q := 0.9 * rng.Float64()
			key := string(rune('A' + i))
			for r := range repeats {
				runScores[r][key] = bern(rng, q+0.1)
				baseScores[r][key] = bern(rng, q)
			}
		}
		_, a, b := Pair(ItemMeans(runScores), ItemMeans(baseScores))
		c := ComparePaired(a, b, false, 0.95)
		if c.Low <= truth && truth <= c.High {
			covered++
		}
	}
	if cov := float64(covered) / reps; cov < 0.93 || cov > 0.97 {
		t.Errorf("pooled paired t interval covered %.3f of %d, want 0.95 ± 0.02", cov, reps)
	}
}

func bern(rng *rand.Rand, p float64) float64 {
	if rng.Float64() < p {
		return 1
	}
	return 0
}
