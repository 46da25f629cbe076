package render

import (
	"fmt"
	"math"

	"github.com/reasonbench/reasonbench/stats"
)

// Level is the confidence level of the intervals in tables and plots.
const Level = 0.95

// Interval methods.
const (
	MethodWilson   = "wilson"    // Wilson score interval for one run's proportion, n = items
	MethodStudentT = "student-t" // mean ± t·s/√R over R runs' accuracies, df = R−1
	MethodItemsT   = "t-items"   // mean ± t·s/√n over one run's n item scores that are not 0/1, df = n−1
)

// Score kinds of a run's items, which choose its interval.
const (
	ScoreBinary = "0/1"  // every item right or wrong: Wilson
	ScoreMean   = "mean" // item scores in between (a mean over samples, or continuous): t over items
)

// Interval is a confidence interval for an accuracy.
type Interval struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Level  float64 `json:"level"`
	Method string  `json:"method"` // MethodWilson, MethodItemsT or MethodStudentT
	// N is the sample behind the interval: items for Wilson and t over
	// items, runs for Student-t.
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
	case MethodItemsT:
		return fmt.Sprintf("t over items, %d items (df=%d)", iv.N, iv.N-1)
	}
	return "none"
}

// Name is the interval's short name for a column header: "Wilson", or "t"
// for either Student-t interval.
func (iv Interval) Name() string {
	switch iv.Method {
	case MethodWilson:
		return "Wilson"
	case MethodItemsT, MethodStudentT:
		return "t"
	}
	return ""
}

// ItemsT is the interval of a mean of n item scores that are not 0/1 with
// sample standard deviation sd (stats.MeanT), clipped to [0, 1]; fewer
// than two items give the vacuous [0, 1].
func ItemsT(mean, sd float64, n int, level float64) Interval {
	iv := Interval{Low: 0, High: 1, Level: level, Method: MethodItemsT, N: n}
	if n < 2 {
		return iv
	}
	lo, hi := stats.MeanT(mean, sd, n, level)
	iv.Low, iv.High = math.Max(0, lo), math.Min(1, hi)
	return iv
}

// Valid reports whether the interval was computed.
func (iv Interval) Valid() bool { return iv.Method != "" }

// NormalQuantile returns the p-quantile of the standard normal distribution.
func NormalQuantile(p float64) float64 { return stats.NormalQuantile(p) }

// Wilson returns the Wilson score interval at the given level for
// successes out of n trials. successes may be fractional (accuracy·n when
// an item's score is a mean over samples). n = 0 gives the vacuous [0, 1].
func Wilson(successes float64, n int, level float64) Interval {
	iv := Interval{Low: 0, High: 1, Level: level, Method: MethodWilson, N: n}
	if n <= 0 {
		return iv
	}
	iv.Low, iv.High = stats.Wilson(successes, n, level)
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
// degrees of freedom (stats.TQuantile).
func TQuantile(p, df float64) float64 { return stats.TQuantile(p, df) }
