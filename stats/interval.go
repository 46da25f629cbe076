package stats

import "math"

// Interval methods, named in tables and JSON.
const (
	MethodNewcombe  = "Newcombe hybrid score (paired, method 10)"
	MethodPairedT   = "paired t on per-item differences"
	MethodUnpaired  = "Newcombe hybrid score (unpaired, method 10)"
	NameMcNemar     = "McNemar exact"
	NamePairedT     = "paired t"
	MethodWilsonOne = "Wilson score"
)

// Wilson returns the Wilson score interval at the given level for
// successes out of n trials (successes may be fractional); n = 0 gives the
// vacuous [0, 1].
func Wilson(successes float64, n int, level float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := math.Min(1, math.Max(0, successes/nf))
	z := NormalQuantile((1 + level) / 2)
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, center-half), math.Min(1, center+half)
}

// Table2x2 counts n paired 0/1 outcomes of configurations A and B:
// Both right, AOnly right (A right, B wrong), BOnly right, Neither.
type Table2x2 struct{ Both, AOnly, BOnly, Neither int }

// N is the number of pairs.
func (t Table2x2) N() int { return t.Both + t.AOnly + t.BOnly + t.Neither }

// Diff is accuracy(A) − accuracy(B) = (AOnly − BOnly)/n.
func (t Table2x2) Diff() float64 {
	if t.N() == 0 {
		return 0
	}
	return float64(t.AOnly-t.BOnly) / float64(t.N())
}

// Newcombe returns Newcombe's hybrid score interval for the difference of
// two paired proportions (Newcombe 1998, Statistics in Medicine 17:2635–2650,
// method 10, the Wilson intervals without continuity correction): the
// Wilson intervals of the two accuracies combined with the correlation of
// the pairs (newcombePhi). It keeps its coverage at small n, where the
// Wald interval does not, and lies within [−1, 1]. n = 0 gives [−1, 1].
func Newcombe(t Table2x2, level float64) (lo, hi float64) {
	return newcombe(t, level, true)
}

// NewcombeUnpaired is the same interval treating the two accuracies as
// independent (phi = 0; Newcombe 1998, Statistics in Medicine 17:873–890,
// method 10): what one gets from the two Wilson intervals alone.
func NewcombeUnpaired(t Table2x2, level float64) (lo, hi float64) {
	return newcombe(t, level, false)
}

func newcombe(t Table2x2, level float64, paired bool) (lo, hi float64) {
	n := t.N()
	if n == 0 {
		return -1, 1
	}
	nf := float64(n)
	a, b, c, d := float64(t.Both), float64(t.AOnly), float64(t.BOnly), float64(t.Neither)
	p1, p2 := (a+b)/nf, (a+c)/nf
	l1, u1 := Wilson(a+b, n, level)
	l2, u2 := Wilson(a+c, n, level)
	phi := 0.0
	if paired {
		phi = newcombePhi(a, b, c, d)
	}
	theta := p1 - p2
	dl := math.Sqrt(math.Max(0, sq(p1-l1)-2*phi*(p1-l1)*(u2-p2)+sq(u2-p2)))
	du := math.Sqrt(math.Max(0, sq(u1-p1)-2*phi*(u1-p1)*(p2-l2)+sq(p2-l2)))
	return math.Max(-1, theta-dl), math.Min(1, theta+du)
}

// newcombePhi is the correlation term of Newcombe's method 10: the phi
// coefficient (ad − bc)/√(efgh) of the 2×2 table, with a positive ad − bc
// first reduced by n/2 and floored at 0 (Newcombe 1998; as in Altman et
// al., "Statistics with Confidence", 2000, ch. 6, and Fagerland, Lydersen
// & Laake, "Statistical Analysis of Contingency Tables", 2017, ch. 8).
// Without that rule, two runs that agree on every item get the zero-width
// interval [0, 0]. A zero margin gives 0.
func newcombePhi(a, b, c, d float64) float64 {
	den := (a + b) * (c + d) * (a + c) * (b + d)
	if den <= 0 {
		return 0
	}
	n := a + b + c + d
	num := a*d - b*c
	if num > 0 {
		num = math.Max(0, num-n/2)
	}
	return num / math.Sqrt(den)
}

func sq(x float64) float64 { return x * x }

// MethodMeanT names the interval of a mean of item scores that are not
// 0/1 (each a mean over samples, or continuous).
const MethodMeanT = "Student-t over items"

// MeanSD returns the mean and the sample standard deviation (n−1) of xs.
func MeanSD(xs []float64) (mean, sd float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(n-1))
}

// MeanT returns mean ± t(1−α/2, n−1)·sd/√n, the interval of a mean over n
// items whose scores have sample standard deviation sd: for item scores
// that are means of k samples the item is the cluster (the samples of one
// item are not independent draws of the run's accuracy). n < 2 gives
// (−Inf, +Inf): no spread to estimate.
func MeanT(mean, sd float64, n int, level float64) (lo, hi float64) {
	if n < 2 {
		return math.Inf(-1), math.Inf(1)
	}
	half := TQuantile((1+level)/2, float64(n-1)) * sd / math.Sqrt(float64(n))
	return mean - half, mean + half
}
