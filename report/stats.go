package report

import (
	"fmt"
	"math"
)

// Level is the confidence level of the intervals in tables and plots.
const Level = 0.95

// Interval methods.
const (
	MethodWilson   = "wilson"    // Wilson score interval for one run's proportion, n = items
	MethodStudentT = "student-t" // mean ± t·s/√R over R runs' accuracies, df = R−1
)

// Interval is a confidence interval for an accuracy.
type Interval struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Level  float64 `json:"level"`
	Method string  `json:"method"` // MethodWilson or MethodStudentT
	// N is the sample behind the interval: items for Wilson, runs for Student-t.
	N int `json:"n"`
}

// Describe says how the interval was computed, e.g. "Wilson, 10 items" or
// "Student-t, 3 runs (df=2)".
func (iv Interval) Describe() string {
	switch iv.Method {
	case MethodWilson:
		return fmt.Sprintf("Wilson, %d items", iv.N)
	case MethodStudentT:
		return fmt.Sprintf("Student-t, %d runs (df=%d)", iv.N, iv.N-1)
	}
	return "none"
}

// Valid reports whether the interval was computed.
func (iv Interval) Valid() bool { return iv.Method != "" }

// NormalQuantile returns the p-quantile of the standard normal distribution.
func NormalQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

// Wilson returns the Wilson score interval at the given level for
// successes out of n trials. successes may be fractional (accuracy·n when
// an item's score is a mean over samples). n = 0 gives the vacuous [0, 1].
func Wilson(successes float64, n int, level float64) Interval {
	iv := Interval{Low: 0, High: 1, Level: level, Method: MethodWilson, N: n}
	if n <= 0 {
		return iv
	}
	nf := float64(n)
	p := math.Min(1, math.Max(0, successes/nf))
	z := NormalQuantile((1 + level) / 2)
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	iv.Low, iv.High = math.Max(0, center-half), math.Min(1, center+half)
	return iv
}

// StudentT returns mean ± t(1−α/2, R−1)·s/√R for R ≥ 2 values (the
// per-run accuracies of repeated runs), clipped to [0, 1], and their mean.
// With fewer than two values there is no spread to estimate: the interval
// is the vacuous [0, 1] around the value.
func StudentT(values []float64, level float64) (mean float64, iv Interval) {
	r := len(values)
	iv = Interval{Low: 0, High: 1, Level: level, Method: MethodStudentT, N: r}
	if r == 0 {
		return 0, iv
	}
	for _, v := range values {
		mean += v
	}
	mean /= float64(r)
	if r < 2 {
		return mean, iv
	}
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(r-1))
	half := TQuantile((1+level)/2, float64(r-1)) * sd / math.Sqrt(float64(r))
	iv.Low, iv.High = math.Max(0, mean-half), math.Min(1, mean+half)
	return mean, iv
}

// TQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom (df > 0, 0 < p < 1), by bisection on the CDF, which is
// computed from the regularized incomplete beta function.
func TQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for tCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if tCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// tCDF is P(T ≤ t) for Student's t with df degrees of freedom.
func tCDF(t, df float64) float64 {
	tail := 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// regIncBeta is the regularized incomplete beta function I_x(a, b)
// (continued fraction, modified Lentz; Numerical Recipes §6.4).
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 1000; m++ {
		mf := float64(m)
		m2 := 2 * mf
		aa := mf * (b - mf) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + mf) * (qab + mf) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
