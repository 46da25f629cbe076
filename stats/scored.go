package stats

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// ScoredItem is one item's candidates chosen among by a verifier (bon's
// best and weighted rules): Keys and Correct as VoteItem's, Scores each
// candidate's aggregated verifier score.
type ScoredItem struct {
	Keys    []int
	Scores  []float64
	Correct []bool
}

// ScoredPoint is the expected accuracy of choosing by the verifier among k'
// of an item's candidates, averaged over items.
type ScoredPoint struct {
	K int `json:"k"`
	// Best is the expected accuracy of the highest-scored candidate of a
	// uniform k'-subset (exact); Weighted that of the answer whose
	// candidates' scores sum highest (enumerated, or estimated from random
	// subsets when there are too many, Exact false, WeightedSE its Monte
	// Carlo standard error).
	Best       float64 `json:"best"`
	Weighted   float64 `json:"weighted"`
	Exact      bool    `json:"exact"`
	WeightedSE float64 `json:"weighted_se"`
	Items      int     `json:"items"`
}

// BestPick returns the candidate of idx (ascending) with the highest
// score, the first on ties (numpy's argmax; strategies' pickBest), or −1
// for none.
func BestPick(scores []float64, idx []int) int {
	best := -1
	for _, i := range idx {
		if best < 0 || scores[i] > scores[best] {
			best = i
		}
	}
	return best
}

// WeightedPick returns the first candidate of idx (ascending) of the
// answer key whose candidates' scores sum highest, ties going to the key
// seen first; abstaining candidates (key −1) count for nothing, and when
// all abstain it is BestPick. This is bon's select=weighted
// (strategies.pickWeighted); a test holds the two together.
func WeightedPick(keys []int, scores []float64, idx []int) int {
	sum := map[int]float64{}
	first := map[int]int{}
	best := -1
	for _, i := range idx {
		k := keys[i]
		if k < 0 {
			continue
		}
		if _, seen := first[k]; !seen {
			first[k] = i
		}
		sum[k] += scores[i]
	}
	for _, i := range idx { // keys in order of first appearance
		k := keys[i]
		if k < 0 || first[k] != i {
			continue
		}
		if best < 0 || sum[k] > sum[best] {
			best = k
		}
	}
	if best < 0 {
		return BestPick(scores, idx)
	}
	return first[best]
}

// ScoredCurve returns, for every k' from 1 to the largest item's candidate
// count, the expected accuracy of the best and weighted rules over
// k'-subsets of each item's candidates: what a run with n = k' would have
// chosen, from one run with n = k.
func ScoredCurve(items []ScoredItem, o CurveOptions) []ScoredPoint {
	curve := subsetCurve(len(items), o, func(n int) subsetRules {
		it := items[n]
		order := bestOrder(it.Scores)
		return subsetRules{
			k:        len(it.Keys),
			closed:   func(kp int) float64 { return bestExpected(it.Correct, order, kp) },
			exact:    func(kp int) float64 { return exactWeighted(it, kp) },
			estimate: func(rng *rand.Rand) []float64 { return prefixWeighted(it, o.Draws, rng) },
		}
	})
	pts := make([]ScoredPoint, len(curve))
	for i, c := range curve {
		pts[i] = ScoredPoint{K: c.k, Best: c.closed, Weighted: c.rule, Exact: c.exact, WeightedSE: c.se, Items: c.items}
	}
	return pts
}

// bestOrder lists the candidates in the order BestPick prefers them: a
// higher score first, an equal one at a lower index first.
func bestOrder(scores []float64) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order
}

// bestExpected is the probability that the highest-ranked candidate of a
// uniform k'-subset is right. The candidate ranked r-th (0-based, in
// order) is picked exactly when it is in the subset and the r ranked above
// it are not: C(k-1-r, k'-1) of the C(k, k') subsets, kept as a running
// product (k'/k · Π_{j<r} (k-k'-j)/(k-1-j)), since the binomials overflow
// at k = 1024. O(k) for each k'.
func bestExpected(correct []bool, order []int, kp int) float64 {
	k := len(correct)
	p := 0.0
	pick := float64(kp) / float64(k)
	for r, i := range order {
		if correct[i] {
			p += pick
		}
		if r+1 < k {
			pick *= float64(k-kp-r) / float64(k-1-r)
		}
	}
	return p
}

// exactWeighted enumerates the k'-subsets in lexicographic order and
// returns the share whose weighted pick is right.
func exactWeighted(it ScoredItem, kp int) float64 {
	right, total := 0, 0
	eachSubset(len(it.Keys), kp, func(idx []int) {
		total++
		if w := WeightedPick(it.Keys, it.Scores, idx); w >= 0 && it.Correct[w] {
			right++
		}
	})
	return float64(right) / float64(total)
}

// prefixWeighted estimates, for every k', the share of k'-subsets whose
// weighted pick is right from draws random permutations: a permutation's
// first k' candidates are a uniform k'-subset. The pick is kept up to date
// as candidates join (O(k) a permutation): only the joining candidate's
// answer can overtake the leader, by its larger sum or, at an equal sum,
// by now holding the earliest candidate (ties go to the answer seen first
// in index order, as WeightedPick). Sums are added in the permutation's
// order, so an exact tie between float sums (0.1 + 0.2 against 0.3) may
// fall otherwise than in WeightedPick: within an estimate's noise. When
// every candidate so far abstains the pick is BestPick's.
func prefixWeighted(it ScoredItem, draws int, rng *rand.Rand) []float64 {
	nk := keySpan(it.Keys)
	sum := make([]float64, nk)
	first := make([]int, nk)
	lead, top := -1, -1 // the leading answer; the best-scored candidate so far
	start := func() {
		clear(sum)
		for i := range first {
			first[i] = -1
		}
		lead, top = -1, -1
	}
	join := func(c int) bool {
		if top < 0 || it.Scores[c] > it.Scores[top] || (it.Scores[c] == it.Scores[top] && c < top) {
			top = c
		}
		if key := it.Keys[c]; key >= 0 {
			sum[key] += it.Scores[c]
			if first[key] < 0 || c < first[key] {
				first[key] = c
			}
			if lead < 0 || sum[key] > sum[lead] || (sum[key] == sum[lead] && first[key] < first[lead]) {
				lead = key
			}
		}
		pick := top
		if lead >= 0 {
			pick = first[lead]
		}
		return it.Correct[pick]
	}
	return prefixShares(len(it.Keys), draws, rng, start, join)
}
