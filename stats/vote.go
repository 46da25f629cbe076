package stats

import (
	"math"
	"math/rand/v2"
)

// VoteItem is one item's samples for a majority vote: Keys[i] is sample i's
// answer key as a small integer (equal answers, equal keys), or −1 when the
// sample gives no answer and so abstains; Correct[i] whether sample i is
// right.
type VoteItem struct {
	Keys    []int
	Correct []bool
}

// Winner returns the sample that a majority vote over the samples idx
// (ascending) picks: the first sample with the most frequent key, ties
// going to the key seen first; abstaining samples never vote. It returns
// −1 when every sample abstains. This is CoT-SC's rule
// (strategies.Vote); a test holds the two together.
func Winner(keys []int, idx []int) int {
	count := map[int]int{}
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
		count[k]++
		if best < 0 || count[k] > count[best] || (count[k] == count[best] && first[k] < first[best]) {
			best = k
		}
	}
	if best < 0 {
		return -1
	}
	return first[best]
}

// CurvePoint is the expected accuracy of a vote over k' of an item's
// samples, averaged over items.
type CurvePoint struct {
	K int `json:"k"`
	// Vote is the expected accuracy of the majority vote over a k'-subset
	// drawn uniformly from each item's samples (an item whose subset all
	// abstains counts wrong); BestOf that some sample of the subset is
	// right (hypergeometric, exact).
	Vote   float64 `json:"vote"`
	BestOf float64 `json:"best_of"`
	// Exact says every item's subsets were enumerated; otherwise VoteSE
	// is the Monte Carlo standard error of Vote (draws random subsets per
	// item), which says nothing of the items' own sampling error.
	Exact  bool    `json:"exact"`
	VoteSE float64 `json:"vote_se"`
	Items  int     `json:"items"` // items with at least k' samples
}

// CurveOptions bound the work of VoteCurve.
type CurveOptions struct {
	// MaxSubsets is the largest number of k'-subsets of one item that is
	// enumerated; beyond it, Draws random subsets are used.
	MaxSubsets float64
	Draws      int
	Seed       uint64
}

// DefaultCurveOptions enumerate up to 20,000 subsets per item and k' and
// otherwise draw 2,000 (k = 100: k' ≤ 2 and k' ≥ 98 exact).
var DefaultCurveOptions = CurveOptions{MaxSubsets: 20000, Draws: 2000, Seed: 1}

// VoteCurve returns, for every k' from 1 to the largest item's sample
// count, the expected accuracy of the vote and of best-of-k' over
// k'-subsets of each item's samples. At k' = k it is the vote over all
// samples.
func VoteCurve(items []VoteItem, o CurveOptions) []CurvePoint {
	kmax := 0
	for _, it := range items {
		kmax = max(kmax, len(it.Keys))
	}
	pts := make([]CurvePoint, kmax)
	varSum := make([]float64, kmax)
	for i := range pts {
		pts[i] = CurvePoint{K: i + 1, Exact: true}
	}
	for n, it := range items {
		k := len(it.Keys)
		c := 0
		for _, ok := range it.Correct {
			if ok {
				c++
			}
		}
		// Monte Carlo estimates for all k' at once, from the prefixes of
		// random permutations, only when some k' needs them.
		var mc []float64
		for kp := 1; kp <= k; kp++ {
			pt := &pts[kp-1]
			pt.Items++
			pt.BestOf += BestOfK(k, c, kp)
			if Choose(k, kp) <= o.MaxSubsets {
				pt.Vote += exactVote(it, kp)
				continue
			}
			if mc == nil {
				mc = prefixVotes(it, o.Draws, rand.New(rand.NewPCG(o.Seed, uint64(n))))
			}
			p := mc[kp-1]
			pt.Vote += p
			pt.Exact = false
			varSum[kp-1] += p * (1 - p) / float64(o.Draws)
		}
	}
	for i := range pts {
		if m := float64(pts[i].Items); m > 0 {
			pts[i].Vote /= m
			pts[i].BestOf /= m
			pts[i].VoteSE = math.Sqrt(varSum[i]) / m
		}
	}
	return pts
}

// BestOfK is the probability that a k'-subset of k samples, c of them
// right, holds a right one: 1 − C(k−c, k')/C(k, k').
func BestOfK(k, c, kp int) float64 {
	if kp > k-c {
		return 1
	}
	none := 1.0
	for i := range kp {
		none *= float64(k-c-i) / float64(k-i)
	}
	return 1 - none
}

// exactVote enumerates the k'-subsets of the item's samples in
// lexicographic order and returns the share whose vote is right. It keeps
// Winner's rule with arrays indexed by key, which it clears after each
// subset (Winner's maps made large enumerations slow).
func exactVote(it VoteItem, kp int) float64 {
	k := len(it.Keys)
	nk := 0
	for _, key := range it.Keys {
		nk = max(nk, key+1)
	}
	count := make([]int, nk)
	first := make([]int, nk)
	right, total := 0, 0
	eachSubset(k, kp, func(idx []int) {
		total++
		best := -1
		for _, i := range idx {
			key := it.Keys[i]
			if key < 0 {
				continue
			}
			if count[key] == 0 {
				first[key] = i
			}
			count[key]++
			if best < 0 || count[key] > count[best] || (count[key] == count[best] && first[key] < first[best]) {
				best = key
			}
		}
		if best >= 0 && it.Correct[first[best]] {
			right++
		}
		for _, i := range idx {
			if key := it.Keys[i]; key >= 0 {
				count[key] = 0
			}
		}
	})
	return float64(right) / float64(total)
}

// eachSubset calls f with every k'-subset of 0..k-1, its indices
// ascending, in lexicographic order; f must not keep idx, which is reused.
func eachSubset(k, kp int, f func(idx []int)) {
	idx := make([]int, kp)
	for i := range idx {
		idx[i] = i
	}
	for {
		f(idx)
		i := kp - 1
		for i >= 0 && idx[i] == k-kp+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for j := i + 1; j < kp; j++ {
			idx[j] = idx[j-1] + 1
		}
	}
}

// prefixVotes estimates, for every k', the share of k'-subsets whose vote
// is right from draws random permutations: a permutation's first k'
// samples are a uniform k'-subset. The vote is kept up to date as samples
// join: only the joining sample's key can overtake the leader.
func prefixVotes(it VoteItem, draws int, rng *rand.Rand) []float64 {
	k := len(it.Keys)
	right := make([]float64, k)
	perm := make([]int, k)
	nk := 0
	for _, key := range it.Keys {
		nk = max(nk, key+1)
	}
	count := make([]int, nk)
	first := make([]int, nk)
	for range draws {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(k, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		clear(count)
		best := -1
		for p, s := range perm {
			if key := it.Keys[s]; key >= 0 {
				count[key]++
				if count[key] == 1 || s < first[key] {
					first[key] = s
				}
				if best < 0 || count[key] > count[best] || (count[key] == count[best] && first[key] < first[best]) {
					best = key
				}
			}
			if best >= 0 && it.Correct[first[best]] {
				right[p]++
			}
		}
	}
	for i := range right {
		right[i] /= float64(draws)
	}
	return right
}
