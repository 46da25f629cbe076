package stats

import (
	"math"
	"math/rand/v2"
)

// subsetRules are an item's two rules of choosing among a k'-subset of its
// k samples, each as the chance it is right over uniform k'-subsets.
type subsetRules struct {
	k int
	// closed is one rule's chance in closed form (best-of-k', the
	// best-scored candidate).
	closed func(kp int) float64
	// exact is the other rule's (the vote, the weighted pick), by
	// enumerating the k'-subsets; estimate estimates it for every k' at
	// once from random permutations' prefixes, for when there are too
	// many subsets.
	exact    func(kp int) float64
	estimate func(rng *rand.Rand) []float64
}

// curveMean is both rules' chance at one k', averaged over the items
// with at least k' samples.
type curveMean struct {
	k, items     int
	closed, rule float64
	exact        bool    // every item's subsets were enumerated
	se           float64 // else the rule's Monte Carlo standard error
}

// subsetCurve averages the rules of n items (rules(i) for item i) for
// every k' from 1 to the largest k: enumerated where an item has at most
// o.MaxSubsets k'-subsets, else estimated from o.Draws permutations drawn
// with the item's own stream (o.Seed, item index), only when some k'
// needs it.
func subsetCurve(n int, o CurveOptions, rules func(i int) subsetRules) []curveMean {
	items := make([]subsetRules, n)
	kmax := 0
	for i := range items {
		items[i] = rules(i)
		kmax = max(kmax, items[i].k)
	}
	pts := make([]curveMean, kmax)
	varSum := make([]float64, kmax)
	for i := range pts {
		pts[i] = curveMean{k: i + 1, exact: true}
	}
	for i, it := range items {
		var mc []float64
		for kp := 1; kp <= it.k; kp++ {
			pt := &pts[kp-1]
			pt.items++
			pt.closed += it.closed(kp)
			if Choose(it.k, kp) <= o.MaxSubsets {
				pt.rule += it.exact(kp)
				continue
			}
			if mc == nil {
				mc = it.estimate(rand.New(rand.NewPCG(o.Seed, uint64(i))))
			}
			p := mc[kp-1]
			pt.rule += p
			pt.exact = false
			varSum[kp-1] += p * (1 - p) / float64(o.Draws)
		}
	}
	for i := range pts {
		if m := float64(pts[i].items); m > 0 {
			pts[i].closed /= m
			pts[i].rule /= m
			pts[i].se = math.Sqrt(varSum[i]) / m
		}
	}
	return pts
}

// prefixShares estimates, for every k', the share of k'-subsets of k
// samples on which a rule picks right, from draws random permutations: a
// permutation's first k' samples are a uniform k'-subset. The rule keeps
// its pick up to date as samples join, O(k) a permutation: start resets
// it, join adds sample s and says whether the pick is now right.
func prefixShares(k, draws int, rng *rand.Rand, start func(), join func(s int) bool) []float64 {
	right := make([]float64, k)
	perm := make([]int, k)
	for range draws {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(k, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		start()
		for p, s := range perm {
			if join(s) {
				right[p]++
			}
		}
	}
	for i := range right {
		right[i] /= float64(draws)
	}
	return right
}

// keySpan is one more than the largest answer key: the length of arrays
// indexed by key.
func keySpan(keys []int) int {
	nk := 0
	for _, key := range keys {
		nk = max(nk, key+1)
	}
	return nk
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
