package stats

import (
	"math"
	"math/big"
	"testing"
)

// passAtKExact is 1 − C(n−c, k)/C(n, k) with exact binomials.
func passAtKExact(n, c, k int) float64 {
	num := new(big.Int).Binomial(int64(n-c), int64(k))
	if n-c < k {
		num.SetInt64(0)
	}
	den := new(big.Int).Binomial(int64(n), int64(k))
	r := new(big.Rat).SetFrac(num, den)
	f, _ := new(big.Rat).Sub(big.NewRat(1, 1), r).Float64()
	return f
}

func TestPassAtK(t *testing.T) {
	for _, c := range []struct {
		n, c, k int
		want    float64
	}{
		{10, 0, 1, 0}, {10, 0, 10, 0}, // no correct sample
		{10, 10, 1, 1}, {10, 10, 10, 1}, // all correct
		{10, 3, 1, 0.3},            // pass@1 is c/n
		{10, 1, 10, 1},             // n−c < k: every draw holds the correct one
		{10, 2, 9, 1},              // n−c = 8 < 9
		{5, 2, 2, 1 - 3.0/10},      // C(3,2)/C(5,2) = 3/10
		{200, 13, 100, math.NaN()}, // checked against the exact value only
		{200, 1, 10, 10.0 / 200},   // one correct: k/n
		{1000, 7, 999, math.NaN()}, // binomials far beyond float64
		{1000, 0, 500, 0}, {1, 1, 1, 1}, {1, 0, 1, 0},
	} {
		got := PassAtK(c.n, c.c, c.k)
		exact := passAtKExact(c.n, c.c, c.k)
		if math.Abs(got-exact) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %.17g, exact %.17g", c.n, c.c, c.k, got, exact)
		}
		if !math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %.17g, want %.17g", c.n, c.c, c.k, got, c.want)
		}
	}
	// Every (n, c, k) up to n = 40 against the exact value; monotone in c
	// and in k.
	for n := 1; n <= 40; n++ {
		for k := 1; k <= n; k++ {
			prev := -1.0
			for c := 0; c <= n; c++ {
				got := PassAtK(n, c, k)
				if exact := passAtKExact(n, c, k); math.Abs(got-exact) > 1e-12 {
					t.Fatalf("PassAtK(%d, %d, %d) = %.17g, exact %.17g", n, c, k, got, exact)
				}
				if got < prev {
					t.Fatalf("PassAtK(%d, %d, %d) = %g below c−1's %g", n, c, k, got, prev)
				}
				prev = got
			}
		}
	}
}

func TestPassAtKPanics(t *testing.T) {
	for _, a := range [][3]int{{5, 6, 1}, {5, -1, 1}, {5, 2, 0}, {5, 2, 6}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("PassAtK%v did not panic", a)
				}
			}()
			PassAtK(a[0], a[1], a[2])
		}()
	}
}

func TestPassHat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n, c, k int
		want    float64
	}{
		{4, 4, 4, 1}, {4, 0, 1, 0}, {4, 2, 1, 0.5}, {4, 2, 2, 1.0 / 6}, {4, 3, 2, 0.5}, {4, 3, 3, 0.25}, {4, 3, 4, 0},
		{1, 1, 1, 1}, {10, 5, 3, 10.0 / 120}, {100, 50, 50, 0},
	}
	for _, tc := range cases {
		if got := PassHat(tc.n, tc.c, tc.k); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("PassHat(%d, %d, %d) = %v, want %v", tc.n, tc.c, tc.k, got, tc.want)
		}
	}
	// pass^1 is the success rate and pass@1 too; pass^k never exceeds pass@k.
	for n := 1; n <= 8; n++ {
		for c := 0; c <= n; c++ {
			if got := PassHat(n, c, 1); math.Abs(got-float64(c)/float64(n)) > 1e-12 || math.Abs(got-PassAtK(n, c, 1)) > 1e-12 {
				t.Errorf("n=%d c=%d: pass^1 %v, pass@1 %v, rate %v", n, c, got, PassAtK(n, c, 1), float64(c)/float64(n))
			}
			for k := 1; k <= n; k++ {
				if PassHat(n, c, k) > PassAtK(n, c, k)+1e-12 {
					t.Errorf("n=%d c=%d k=%d: pass^k %v > pass@k %v", n, c, k, PassHat(n, c, k), PassAtK(n, c, k))
				}
			}
		}
	}
}
