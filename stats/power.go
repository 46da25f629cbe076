package stats

import (
	"errors"
	"fmt"
	"math"
)

// Connor's sample size for McNemar's test (Connor 1987, "Sample size for
// testing differences in proportions for the paired-sample design",
// Biometrics 43:207–211):
//
//	n = ( z(1−α/2)·√ψ + z(power)·√(ψ − δ²) )² / δ²
//
// where δ = p10 − p01 is the paired difference to detect and ψ = p10 + p01
// the proportion of discordant items.

// ConnorItems returns the items needed to detect a paired difference
// delta with discordant proportion psi by a two-sided test at level alpha
// with the given power, rounded up.
func ConnorItems(delta, psi, alpha, power float64) (int, error) {
	if err := checkConnor(delta, psi, alpha, power); err != nil {
		return 0, err
	}
	return int(math.Ceil(connorN(math.Abs(delta), psi, alpha, power) - 1e-9)), nil
}

func connorN(delta, psi, alpha, power float64) float64 {
	za, zb := NormalQuantile(1-alpha/2), NormalQuantile(power)
	s := za*math.Sqrt(psi) + zb*math.Sqrt(math.Max(0, psi-delta*delta))
	return s * s / (delta * delta)
}

func checkConnor(delta, psi, alpha, power float64) error {
	switch {
	case !(alpha > 0 && alpha < 1):
		return fmt.Errorf("alpha %g: want 0 < alpha < 1", alpha)
	case !(power > 0 && power < 1):
		return fmt.Errorf("power %g: want 0 < power < 1", power)
	case !(psi > 0 && psi <= 1):
		return fmt.Errorf("discordant proportion %g: want 0 < discordant <= 1", psi)
	case delta == 0 || math.IsNaN(delta):
		return errors.New("difference 0: want a non-zero difference to detect")
	case math.Abs(delta) > psi:
		return fmt.Errorf("difference %g exceeds the discordant proportion %g: only discordant items can differ", delta, psi)
	}
	return nil
}

// IndependentDiscordant is the discordant proportion when the two
// configurations err independently at accuracies p0 and p0+delta:
// p1(1−p0) + p0(1−p1). Runs on the same items usually agree more than
// that, so sizes from it are conservative.
func IndependentDiscordant(p0, delta float64) float64 {
	p1 := p0 + delta
	return p1*(1-p0) + p0*(1-p1)
}

// ConnorMDD is the inverse of ConnorItems: the smallest difference δ > 0
// that n items detect at alpha with the given power, where psi(δ) gives the
// discordant proportion for δ (a constant, or IndependentDiscordant) and
// maxDelta bounds δ. ok is false when no δ ≤ maxDelta is detectable.
func ConnorMDD(n int, psi func(delta float64) float64, maxDelta, alpha, power float64) (delta float64, ok bool) {
	if n <= 0 || !(maxDelta > 0) {
		return 0, false
	}
	need := func(d float64) float64 {
		p := psi(d)
		if p <= 0 || d > p+1e-12 {
			return math.Inf(1)
		}
		return connorN(d, p, alpha, power)
	}
	if need(maxDelta) > float64(n) {
		return 0, false
	}
	lo, hi := 0.0, maxDelta
	for range 200 {
		mid := (lo + hi) / 2
		if need(mid) > float64(n) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, true
}

// PairedMDD is the smallest mean difference a paired t-test on n items
// detects at alpha with the given power when the per-item differences have
// standard deviation sd (normal approximation): (z(1−α/2) + z(power))·sd/√n.
func PairedMDD(n int, sd, alpha, power float64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	return (NormalQuantile(1-alpha/2) + NormalQuantile(power)) * sd / math.Sqrt(float64(n))
}
