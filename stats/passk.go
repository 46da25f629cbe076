package stats

// PassAtK is the unbiased estimator of pass@k of Chen et al. (2021,
// "Evaluating Large Language Models Trained on Code", eq. 1) from n
// samples of which c are correct: 1 − C(n−c, k)/C(n, k), the probability
// that k of the n samples drawn without replacement include a correct one.
// It is computed in the paper's numerically stable form,
// 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms a binomial. With fewer
// than k incorrect samples every draw of k holds a correct one: 1.
// It panics unless 0 ≤ c ≤ n and 1 ≤ k ≤ n.
func PassAtK(n, c, k int) float64 {
	if c < 0 || c > n || k < 1 || k > n {
		panic("stats.PassAtK: want 0 <= c <= n and 1 <= k <= n")
	}
	if n-c < k {
		return 1
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod
}

// PassHat is pass^k as the τ-bench paper (Yao et al. 2024) defines it for a
// task with c successes of n trials: C(c,k)/C(n,k), the chance that k
// trials drawn without replacement all succeed; averaged over tasks it is
// the benchmark's pass^k. It panics unless 0 <= c <= n and 1 <= k <= n.
func PassHat(n, c, k int) float64 {
	if c < 0 || c > n || k < 1 || k > n {
		panic("stats.PassHat: want 0 <= c <= n and 1 <= k <= n")
	}
	if c < k {
		return 0
	}
	// C(c,k)/C(n,k) = prod_{i<k} (c-i)/(n-i), in floats without overflow.
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return p
}
