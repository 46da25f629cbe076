package stats

import (
	"math"
	"math/rand/v2"
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
	kmax := 0
	for _, it := range items {
		kmax = max(kmax, len(it.Keys))
	}
	pts := make([]ScoredPoint, kmax)
	varSum := make([]float64, kmax)
	for i := range pts {
		pts[i] = ScoredPoint{K: i + 1, Exact: true}
	}
	for n, it := range items {
		k := len(it.Keys)
		above := rankedAbove(it.Scores)
		var mc []float64
		for kp := 1; kp <= k; kp++ {
			pt := &pts[kp-1]
			pt.Items++
			pt.Best += bestExpected(it.Correct, above, kp)
			if Choose(k, kp) <= o.MaxSubsets {
				pt.Weighted += exactWeighted(it, kp)
				continue
			}
			if mc == nil {
				mc = prefixWeighted(it, o.Draws, rand.New(rand.NewPCG(o.Seed, uint64(n))))
			}
			p := mc[kp-1]
			pt.Weighted += p
			pt.Exact = false
			varSum[kp-1] += p * (1 - p) / float64(o.Draws)
		}
	}
	for i := range pts {
		if m := float64(pts[i].Items); m > 0 {
			pts[i].Best /= m
			pts[i].Weighted /= m
			pts[i].WeightedSE = math.Sqrt(varSum[i]) / m
		}
	}
	return pts
}

// rankedAbove counts, for each candidate, those BestPick prefers to it:
// a higher score, or an equal one at a lower index.
func rankedAbove(scores []float64) []int {
	out := make([]int, len(scores))
	for i, s := range scores {
		for j, t := range scores {
			if t > s || (t == s && j < i) {
				out[i]++
			}
		}
	}
	return out
}

// bestExpected is the probability that the highest-ranked candidate of a
// uniform k'-subset is right: candidate i is picked when it is in the
// subset (k'/k) and none of the above[i] ranked above it is among the
// other k'−1 drawn from the k−1 others.
func bestExpected(correct []bool, above []int, kp int) float64 {
	k := len(correct)
	p := 0.0
	for i, ok := range correct {
		if !ok {
			continue
		}
		q := float64(kp) / float64(k)
		for j := range kp - 1 {
			q *= float64(k-1-above[i]-j) / float64(k-1-j)
		}
		p += max(q, 0)
	}
	return p
}

// exactWeighted enumerates the k'-subsets in lexicographic order and
// returns the share whose weighted pick is right.
func exactWeighted(it ScoredItem, kp int) float64 {
	k := len(it.Keys)
	idx := make([]int, kp)
	for i := range idx {
		idx[i] = i
	}
	right, total := 0, 0
	for {
		total++
		if w := WeightedPick(it.Keys, it.Scores, idx); w >= 0 && it.Correct[w] {
			right++
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
	return float64(right) / float64(total)
}

// prefixWeighted estimates, for every k', the share of k'-subsets whose
// weighted pick is right from draws random permutations (a permutation's
// first k' candidates are a uniform k'-subset, taken in index order).
func prefixWeighted(it ScoredItem, draws int, rng *rand.Rand) []float64 {
	k := len(it.Keys)
	right := make([]float64, k)
	perm := make([]int, k)
	sub := make([]int, 0, k)
	for range draws {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(k, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		sub = sub[:0]
		for p, s := range perm {
			// insert s keeping sub ascending
			sub = append(sub, s)
			for q := len(sub) - 1; q > 0 && sub[q] < sub[q-1]; q-- {
				sub[q], sub[q-1] = sub[q-1], sub[q]
			}
			if w := WeightedPick(it.Keys, it.Scores, sub); w >= 0 && it.Correct[w] {
				right[p]++
			}
		}
	}
	for i := range right {
		right[i] /= float64(draws)
	}
	return right
}
