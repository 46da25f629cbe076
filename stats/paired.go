package stats

import (
	"math"
	"slices"
)

// Comparison is a run (or configuration) against a baseline over the items
// both answered.
type Comparison struct {
	N                int
	Accuracy         float64 // the run's mean score over the paired items
	BaselineAccuracy float64
	Difference       float64 // Accuracy − BaselineAccuracy
	Low, High        float64 // interval for Difference at the level asked
	CIMethod         string
	// P is the two-sided p-value of Test; NaN when it is undefined (a
	// paired t with fewer than two items).
	P    float64
	Test string
	// RunOnly and BaselineOnly are the discordant items: the run right and
	// the baseline wrong, and the reverse (for continuous scores: the
	// items where the run scored higher, and lower).
	RunOnly, BaselineOnly int
	// SD is the standard deviation of the per-item differences.
	SD float64
}

// MDD is the minimum difference this comparison's n items detect at alpha
// with the given power: Connor's for 0/1 scores, with the discordant
// proportion as observed (at least one item's worth); PairedMDD from the
// observed spread otherwise. ok is false when none is detectable.
func (c Comparison) MDD(alpha, power float64) (float64, bool) {
	if c.N == 0 {
		return 0, false
	}
	if c.Test == NameMcNemar {
		psi := math.Max(float64(c.RunOnly+c.BaselineOnly), 1) / float64(c.N)
		return ConnorMDD(c.N, func(float64) float64 { return psi }, psi, alpha, power)
	}
	if c.N < 2 {
		return 0, false
	}
	return PairedMDD(c.N, c.SD, alpha, power), true
}

// ComparePaired compares per-item scores run[i] and base[i] of the same
// items. binary says the scores are 0/1 outcomes of one run each: then the
// interval is Newcombe's paired hybrid score interval and the test exact
// McNemar. Otherwise (continuous scores, or item means over repeated runs)
// it is a paired t-test and t interval on the per-item differences, the
// item being the cluster (Miller 2024, "Adding Error Bars to Evals", §4).
func ComparePaired(run, base []float64, binary bool, level float64) Comparison {
	n := min(len(run), len(base))
	c := Comparison{N: n}
	var sumR, sumB float64
	for i := range n {
		sumR += run[i]
		sumB += base[i]
		switch {
		case run[i] > base[i]:
			c.RunOnly++
		case run[i] < base[i]:
			c.BaselineOnly++
		}
	}
	if n > 0 {
		c.Accuracy, c.BaselineAccuracy = sumR/float64(n), sumB/float64(n)
	}
	c.Difference = c.Accuracy - c.BaselineAccuracy
	if binary {
		t := Table2x2{AOnly: c.RunOnly, BOnly: c.BaselineOnly}
		for i := range n {
			switch {
			case run[i] == 1 && base[i] == 1:
				t.Both++
			case run[i] == 0 && base[i] == 0:
				t.Neither++
			}
		}
		c.Low, c.High = Newcombe(t, level)
		c.CIMethod, c.Test = MethodNewcombe, NameMcNemar
		c.P = McNemarExact(c.RunOnly, c.BaselineOnly)
		d := make([]float64, n)
		for i := range n {
			d[i] = run[i] - base[i]
		}
		c.SD = sd(d)
		return c
	}
	d := make([]float64, n)
	for i := range n {
		d[i] = run[i] - base[i]
	}
	c.SD = sd(d)
	c.CIMethod, c.Test = MethodPairedT, NamePairedT
	_, c.Low, c.High, c.P = PairedT(d, level)
	return c
}

// PairedT is the one-sample t-test of mean zero on per-item differences d,
// with its interval mean ± t(1−α/2, n−1)·sd/√n. With fewer than two
// differences the interval is (−Inf, +Inf) and p is NaN; with no spread
// the interval is the mean itself and p is 1 for a zero mean, else 0.
func PairedT(d []float64, level float64) (mean, lo, hi, p float64) {
	n := len(d)
	for _, x := range d {
		mean += x
	}
	if n == 0 {
		return 0, math.Inf(-1), math.Inf(1), math.NaN()
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.Inf(-1), math.Inf(1), math.NaN()
	}
	var ss float64
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	if se == 0 {
		if mean == 0 {
			return mean, mean, mean, 1
		}
		return mean, mean, mean, 0
	}
	df := float64(n - 1)
	half := TQuantile((1+level)/2, df) * se
	t := math.Abs(mean) / se
	return mean, mean - half, mean + half, 2 * (1 - TCDF(t, df))
}

// Binary reports whether every score is 0 or 1.
func Binary(xs ...[]float64) bool {
	for _, s := range xs {
		for _, x := range s {
			if x != 0 && x != 1 {
				return false
			}
		}
	}
	return true
}

// ItemMeans pools the runs of one configuration with the item as the
// cluster (Miller 2024): each item's score is the mean of its scores over
// the runs that answered it. Keys identify items across runs.
func ItemMeans(runs []map[string]float64) map[string]float64 {
	sum := map[string]float64{}
	cnt := map[string]int{}
	for _, r := range runs {
		for k, v := range r {
			sum[k] += v
			cnt[k]++
		}
	}
	for k := range sum {
		sum[k] /= float64(cnt[k])
	}
	return sum
}

// Pair lines up the items both a and b scored, in key order.
func Pair(a, b map[string]float64) (keys []string, av, bv []float64) {
	for k := range a {
		if _, ok := b[k]; ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		av = append(av, a[k])
		bv = append(bv, b[k])
	}
	return keys, av, bv
}

// sd is the sample standard deviation (0 for fewer than two values).
func sd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var m, ss float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}
