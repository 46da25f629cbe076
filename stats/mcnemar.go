package stats

import (
	"math"
	"slices"
)

// McNemarExact is the two-sided exact McNemar test: the binomial test of b
// successes in b+c discordant pairs against p = 1/2, as
// scipy.stats.binomtest(b, b+c, 0.5).pvalue. With p = 1/2 the distribution
// is symmetric, so the p-value is 2·P(X ≤ min(b, c)), capped at 1. No
// discordant pairs is no evidence: p = 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	if 2*m == n {
		return 1
	}
	// Sum C(n, i)/2^n for i ≤ m in log space (n may be in the thousands).
	logs := make([]float64, m+1)
	for i := range logs {
		logs[i] = logChoose(n, i) - float64(n)*math.Ln2
	}
	top := slices.Max(logs)
	var s float64
	for _, l := range logs {
		s += math.Exp(l - top)
	}
	return math.Min(1, 2*math.Exp(top+math.Log(s)))
}

// Holm adjusts p-values for the m comparisons of one table by Holm's
// step-down method (as statsmodels' multipletests(method="holm")): the i-th
// smallest p (from 0) is multiplied by m−i, made monotone and capped at 1.
// The result is in the order of the input.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		adj := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}
