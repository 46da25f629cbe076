package stats

import (
	"math"
	"testing"
)

// TestMeanSD: the mean and the sample (n-1) standard deviation; none for
// no items, no spread for one.
func TestMeanSD(t *testing.T) {
	for _, c := range []struct {
		xs       []float64
		mean, sd float64
	}{
		{nil, 0, 0},
		{[]float64{0.75}, 0.75, 0},
		{[]float64{1, 0}, 0.5, math.Sqrt(0.5)},
		// sum of squares 32 over 7
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 2.138089935299395},
	} {
		m, sd := MeanSD(c.xs)
		if !near(m, c.mean, 1e-12) || !near(sd, c.sd, 1e-12) {
			t.Errorf("MeanSD(%v) = %v, %v; want %v, %v", c.xs, m, sd, c.mean, c.sd)
		}
	}
}

// TestMeanT: mean ± t(1-α/2, n-1)·sd/√n. The quantiles are scipy's
// t.ppf(0.975, 7) = 2.3646242510102993 and t.ppf(0.95, 7) =
// 1.894578605061305 (stats/testdata/reference.py's t_ppf agrees to 1e-9).
func TestMeanT(t *testing.T) {
	sd := 2.138089935299395
	for _, c := range []struct {
		level, lo, hi float64
	}{
		{0.95, 3.2125120822041073, 6.787487917795893},
		{0.90, 3.567833191926894, 6.432166808073106},
	} {
		lo, hi := MeanT(5, sd, 8, c.level)
		if !near(lo, c.lo, 1e-8) || !near(hi, c.hi, 1e-8) {
			t.Errorf("MeanT(5, %v, 8, %v) = [%.12g, %.12g], want [%.12g, %.12g]", sd, c.level, lo, hi, c.lo, c.hi)
		}
	}
	for _, n := range []int{0, 1} {
		if lo, hi := MeanT(0.5, 0.1, n, 0.95); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
			t.Errorf("MeanT with n=%d = [%v, %v], want the whole line", n, lo, hi)
		}
	}
	if lo, hi := MeanT(0.5, 0, 10, 0.95); lo != 0.5 || hi != 0.5 {
		t.Errorf("no spread: [%v, %v]", lo, hi)
	}
}
