package stats

import "math/rand/v2"

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
	curve := subsetCurve(len(items), o, func(n int) subsetRules {
		it := items[n]
		k, c := len(it.Keys), 0
		for _, ok := range it.Correct {
			if ok {
				c++
			}
		}
		return subsetRules{
			k:        k,
			closed:   func(kp int) float64 { return BestOfK(k, c, kp) },
			exact:    func(kp int) float64 { return exactVote(it, kp) },
			estimate: func(rng *rand.Rand) []float64 { return prefixVotes(it, o.Draws, rng) },
		}
	})
	pts := make([]CurvePoint, len(curve))
	for i, c := range curve {
		pts[i] = CurvePoint{K: c.k, Vote: c.rule, BestOf: c.closed, Exact: c.exact, VoteSE: c.se, Items: c.items}
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
	nk := keySpan(it.Keys)
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

// prefixVotes estimates, for every k', the share of k'-subsets whose vote
// is right from draws random permutations: a permutation's first k'
// samples are a uniform k'-subset. The vote is kept up to date as samples
// join: only the joining sample's key can overtake the leader.
func prefixVotes(it VoteItem, draws int, rng *rand.Rand) []float64 {
	nk := keySpan(it.Keys)
	count := make([]int, nk)
	first := make([]int, nk)
	best := -1
	start := func() {
		clear(count)
		best = -1
	}
	join := func(s int) bool {
		if key := it.Keys[s]; key >= 0 {
			count[key]++
			if count[key] == 1 || s < first[key] {
				first[key] = s
			}
			if best < 0 || count[key] > count[best] || (count[key] == count[best] && first[key] < first[best]) {
				best = key
			}
		}
		return best >= 0 && it.Correct[first[best]]
	}
	return prefixShares(len(it.Keys), draws, rng, start, join)
}
