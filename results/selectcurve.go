package results

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/reasonbench/reasonbench/stats"
)

// scoredItem is one item's samples as a verifier saw them: each sample's
// answer key (-1: no answer), verdict and aggregated verifier score.
type scoredItem struct {
	keys    []int
	correct []bool
	scores  []float64
}

// score is a sample's score for ranking: a NaN (a verifier's garbage)
// ranks below every number.
func (it scoredItem) score(i int) float64 {
	if math.IsNaN(it.scores[i]) {
		return math.Inf(-1)
	}
	return it.scores[i]
}

// bestExpected is the probability that best-of-N' by verifier score picks a
// right sample from a uniform N'-subset: the subset's highest-scored sample,
// ties to the earliest (search-and-learn's compute_naive_pred sorts by
// score with Python's stable sort, so the first of equals wins). A sample
// ranked r-th (0-based) is picked exactly when it is in the subset and the r
// samples ranked above it are not: C(k-1-r, N'-1) of the C(k, N') subsets.
// Exact, whatever k. The answer need not exist: a verifier picks a
// solution, and one with no answer is wrong.
func bestExpected(it scoredItem, kp int) float64 {
	k := len(it.keys)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(it.score(b), it.score(a)) })
	// pick(r) = C(k-1-r, N'-1)/C(k, N') = N'/k · Π_{j<r} (k-N'-j)/(k-1-j),
	// as a running product: the binomials themselves overflow at k = 1024.
	var p float64
	pick := float64(kp) / float64(k)
	for r, i := range order {
		if it.correct[i] {
			p += pick
		}
		if r+1 < k {
			pick *= float64(k-kp-r) / float64(k-1-r)
		}
	}
	return p
}

// weightedWinner returns the sample whose answer weighted best-of-N picks
// among the samples idx (ascending): verifier scores summed per answer, the
// largest sum winning, ties to the answer seen first (search-and-learn's
// find_answer_with_largest_sum takes max over a dict in insertion order);
// samples without an answer do not count (as in CoT-SC's vote, where
// search-and-learn would group the empty strings as one answer). It
// returns the first sample of the winning answer, or -1 when no sample has
// one.
func weightedWinner(it scoredItem, idx []int) int {
	sum := map[int]float64{}
	first := map[int]int{}
	var order []int
	for _, i := range idx {
		k := it.keys[i]
		if k < 0 {
			continue
		}
		if _, seen := first[k]; !seen {
			first[k] = i
			order = append(order, k)
		}
		s := it.score(i)
		if math.IsInf(s, -1) {
			s = 0 // a NaN score adds nothing
		}
		sum[k] += s
	}
	best := -1
	for _, k := range order {
		if best < 0 || sum[k] > sum[best] {
			best = k
		}
	}
	if best < 0 {
		return -1
	}
	return first[best]
}

// weightedExpected is the probability that weighted best-of-N' over a
// uniform N'-subset of the item's samples picks a right answer: every
// subset enumerated when there are at most o.MaxSubsets of them, else
// estimated from o.Draws random subsets (exact false, se the Monte Carlo
// standard error). mc holds the item's sampled estimates for every N'
// (weightedPrefixes), computed on first need and shared across N'.
func weightedExpected(it scoredItem, kp int, o stats.CurveOptions, mc *[]float64, stream uint64) (p float64, exact bool, se float64) {
	k := len(it.keys)
	if stats.Choose(k, kp) <= o.MaxSubsets {
		idx := make([]int, kp)
		for i := range idx {
			idx[i] = i
		}
		n, total := 0, 0
		for {
			total++
			if w := weightedWinner(it, idx); w >= 0 && it.correct[w] {
				n++
			}
			i := kp - 1
			for i >= 0 && idx[i] == k-kp+i {
				i--
			}
			if i < 0 {
				break
			}
			idx[i]++
			for j := i + 1; j < kp; j++ {
				idx[j] = idx[j-1] + 1
			}
		}
		return float64(n) / float64(total), true, 0
	}
	if *mc == nil {
		*mc = weightedPrefixes(it, o.Draws, rand.New(rand.NewPCG(o.Seed, stream)))
	}
	p = (*mc)[kp-1]
	return p, false, math.Sqrt(p * (1 - p) / float64(o.Draws))
}

// Measured here: 50 problems of 256 scored samples take 0.64 s of CPU for
// the whole curve, half of it the vote's (stats.VoteCurve), half this.
//
// weightedPrefixes estimates, for every N', the share of N'-subsets whose
// weighted pick is right from draws random permutations: a permutation's
// first N' samples are a uniform N'-subset. The pick is kept up to date as
// samples join: only the joining sample's answer can overtake the leader,
// by its larger sum or, at an equal sum, by now holding the earliest sample
// (ties go to the answer seen first in sample order, as weightedWinner).
// Sums are added in the permutation's order, so an exact tie between
// float sums (0.1 + 0.2 against 0.3) may fall otherwise than in
// weightedWinner's sample order: within an estimate's noise.
func weightedPrefixes(it scoredItem, draws int, rng *rand.Rand) []float64 {
	k := len(it.keys)
	nk := 0
	for _, key := range it.keys {
		nk = max(nk, key+1)
	}
	right := make([]float64, k)
	perm := make([]int, k)
	sum := make([]float64, nk)
	first := make([]int, nk)
	for range draws {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(k, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		clear(sum)
		for i := range first {
			first[i] = -1
		}
		lead := -1
		for n, s := range perm {
			if key := it.keys[s]; key >= 0 {
				v := it.score(s)
				if math.IsInf(v, -1) {
					v = 0
				}
				sum[key] += v
				if first[key] < 0 || s < first[key] {
					first[key] = s
				}
				if lead < 0 || sum[key] > sum[lead] || (sum[key] == sum[lead] && first[key] < first[lead]) {
					lead = key
				}
			}
			if lead >= 0 && it.correct[first[lead]] {
				right[n]++
			}
		}
	}
	for i := range right {
		right[i] /= float64(draws)
	}
	return right
}
