package stats

import (
	"math"
	"testing"
)

// Reference values in this file were computed beforehand by
// stats/testdata/reference.py (python3 stats/testdata/reference.py), from
// exact formulas with Python's fractions, math and statistics modules:
// scipy is not installed on the machine that wrote them. The script says
// which scipy/statsmodels call each formula stands for.

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMcNemarExact(t *testing.T) {
	// python3 stats/testdata/reference.py | grep mcnemar
	// (= scipy.stats.binomtest(b, b+c, 0.5).pvalue)
	cases := []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1}, {1, 0, 1}, {5, 5, 1},
		{3, 9, 0.14599609375}, {9, 3, 0.14599609375},
		{12, 2, 0.012939453125}, {0, 10, 0.001953125},
		{40, 60, 0.05688793364098079}, {150, 110, 0.01541558283317147},
	}
	for _, c := range cases {
		if got := McNemarExact(c.b, c.c); !near(got, c.p, 1e-12*max(1, c.p)) {
			t.Errorf("McNemarExact(%d, %d) = %.15g, want %.15g", c.b, c.c, got, c.p)
		}
	}
}

func TestHolm(t *testing.T) {
	// python3 stats/testdata/reference.py | grep holm
	// (= statsmodels multipletests(p, method="holm")[1])
	cases := []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005, 0.5}, []float64{0.04, 0.09, 0.09, 0.025, 0.5}},
		{[]float64{0.2, 0.2, 0.01}, []float64{0.4, 0.4, 0.03}},
		{[]float64{0.7}, []float64{0.7}},
		{nil, []float64{}},
	}
	for _, c := range cases {
		got := Holm(c.p)
		if len(got) != len(c.want) {
			t.Fatalf("Holm(%v) = %v", c.p, got)
		}
		for i := range got {
			if !near(got[i], c.want[i], 1e-12) {
				t.Errorf("Holm(%v) = %v, want %v", c.p, got, c.want)
				break
			}
		}
	}
}

func TestNewcombe(t *testing.T) {
	// python3 stats/testdata/reference.py | grep newcombe. The first row,
	// (36, 12, 2, 0), is example (a) of Newcombe (1998), whose table gives
	// method 10 as 0.0569 to 0.3404 (ad − bc < 0 there, so the n/2 rule of
	// the correlation term does not act). The rows with ad − bc > n/2 or
	// 0 ≤ ad − bc ≤ n/2 check that rule: (59, 6, 16, 80) and (1, 1, 7, 12)
	// are the Cavo and Bentur tables of Fagerland, Lydersen & Laake (2017,
	// ch. 8), and (5, 0, 0, 5), perfect agreement, must not collapse to
	// [0, 0].
	cases := []struct {
		tab    Table2x2
		lo, hi float64
	}{
		{Table2x2{36, 12, 2, 0}, 0.05692958400323883, 0.3404276029749405},
		{Table2x2{10, 5, 2, 83}, -0.02866368608518538, 0.09216704165799627},
		{Table2x2{0, 0, 0, 10}, -0.27753279986288915, 0.27753279986288915},
		{Table2x2{5, 0, 0, 5}, -0.16659315708122255, 0.16659315708122255},
		{Table2x2{3, 7, 1, 4}, 0.04476387604310633, 0.6404880581975135},
		{Table2x2{40, 15, 5, 40}, 0.012305502434682244, 0.18436902937822675},
		{Table2x2{59, 6, 16, 80}, -0.11862119563870993, -0.004625113933050061},
		{Table2x2{1, 1, 7, 12}, -0.5069202266861409, -0.025559124164859892},
	}
	for _, c := range cases {
		lo, hi := Newcombe(c.tab, 0.95)
		if !near(lo, c.lo, 1e-9) || !near(hi, c.hi, 1e-9) {
			t.Errorf("Newcombe(%+v) = [%.12f, %.12f], want [%.12f, %.12f]", c.tab, lo, hi, c.lo, c.hi)
		}
		if d := c.tab.Diff(); d < lo-1e-12 || d > hi+1e-12 {
			t.Errorf("Newcombe(%+v) = [%f, %f] misses the difference %f", c.tab, lo, hi, d)
		}
	}
	if lo, hi := Newcombe(Table2x2{}, 0.95); lo != -1 || hi != 1 {
		t.Errorf("no pairs: [%f, %f], want [-1, 1]", lo, hi)
	}
}

func TestConnorItems(t *testing.T) {
	// python3 stats/testdata/reference.py | grep connor
	cases := []struct {
		delta, psi, alpha, power float64
		n                        int
	}{
		{0.1, 0.2, 0.05, 0.8, 155},
		{0.05, 0.3, 0.05, 0.9, 1257},
		{0.2, 0.25, 0.01, 0.8, 71},
		{-0.1, 0.2, 0.05, 0.8, 155},
	}
	for _, c := range cases {
		n, err := ConnorItems(c.delta, c.psi, c.alpha, c.power)
		if err != nil || n != c.n {
			t.Errorf("ConnorItems(%v, %v, %v, %v) = %d, %v; want %d", c.delta, c.psi, c.alpha, c.power, n, err, c.n)
		}
		// The inverse: n items detect delta, n−1 do not quite.
		psi := func(float64) float64 { return c.psi }
		d, ok := ConnorMDD(n, psi, c.psi, c.alpha, c.power)
		if !ok || d > math.Abs(c.delta)+1e-9 {
			t.Errorf("ConnorMDD(%d) = %v, %v; want <= %v", n, d, ok, math.Abs(c.delta))
		}
		if d, _ := ConnorMDD(n-1, psi, c.psi, c.alpha, c.power); d <= math.Abs(c.delta) {
			t.Errorf("ConnorMDD(%d) = %v; want > %v", n-1, d, math.Abs(c.delta))
		}
	}
	for _, bad := range [][4]float64{{0, 0.2, 0.05, 0.8}, {0.3, 0.2, 0.05, 0.8}, {0.1, 0, 0.05, 0.8}, {0.1, 0.2, 1, 0.8}, {0.1, 0.2, 0.05, 1}} {
		if _, err := ConnorItems(bad[0], bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("ConnorItems%v: want an error", bad)
		}
	}
	if _, ok := ConnorMDD(3, func(float64) float64 { return 0.1 }, 0.1, 0.05, 0.8); ok {
		t.Error("3 items detect a difference of 0.1 with 10% discordant?")
	}
}

func TestPairedT(t *testing.T) {
	// python3 stats/testdata/reference.py | grep pairedt: mean ± t(0.975, 4)·sd/√5
	// and p = 2(1 − T(|t|)), with Student's t density integrated numerically
	// (scipy.stats.ttest_1samp(d, 0) and its confidence_interval()).
	mean, lo, hi, p := PairedT([]float64{0.5, 0.2, -0.1, 0.4, 0.3}, 0.95)
	if !near(mean, 0.26, 1e-12) || !near(lo, -0.02585251909870312, 1e-9) || !near(hi, 0.5458525190987031, 1e-9) || !near(p, 0.06498591034211376, 1e-9) {
		t.Errorf("PairedT = %v [%v, %v] p=%v", mean, lo, hi, p)
	}
	if _, lo, hi, p := PairedT([]float64{0.1, 0.1}, 0.95); lo != 0.1 || hi != 0.1 || p != 0 {
		t.Errorf("no spread: [%v, %v] p=%v", lo, hi, p)
	}
	if _, _, _, p := PairedT([]float64{0.1}, 0.95); !math.IsNaN(p) {
		t.Errorf("one difference: p=%v, want NaN", p)
	}
}

func TestComparePaired(t *testing.T) {
	run := []float64{1, 1, 0, 1, 0, 1, 1, 1, 0, 1}
	base := []float64{1, 0, 0, 0, 0, 1, 0, 1, 1, 0}
	c := ComparePaired(run, base, Binary(run, base), 0.95)
	// 3 both right, 4 run only, 1 baseline only, 2 neither.
	if c.N != 10 || c.RunOnly != 4 || c.BaselineOnly != 1 || !near(c.Difference, 0.3, 1e-12) || c.Test != NameMcNemar {
		t.Fatalf("%+v", c)
	}
	if want := McNemarExact(4, 1); c.P != want {
		t.Errorf("p = %v, want %v", c.P, want)
	}
	if lo, hi := Newcombe(Table2x2{3, 4, 1, 2}, 0.95); c.Low != lo || c.High != hi {
		t.Errorf("ci = [%v, %v], want [%v, %v]", c.Low, c.High, lo, hi)
	}
	f := ComparePaired([]float64{0.5, 0.7}, []float64{0.4, 0.4}, false, 0.95)
	if f.Test != NamePairedT || f.CIMethod != MethodPairedT || f.RunOnly != 2 {
		t.Errorf("continuous: %+v", f)
	}
}

func TestItemMeansAndPair(t *testing.T) {
	m := ItemMeans([]map[string]float64{{"a": 1, "b": 0}, {"a": 0, "b": 0, "c": 1}})
	if m["a"] != 0.5 || m["b"] != 0 || m["c"] != 1 {
		t.Errorf("ItemMeans = %v", m)
	}
	keys, av, bv := Pair(m, map[string]float64{"c": 0, "a": 1, "z": 1})
	if len(keys) != 2 || keys[0] != "a" || keys[1] != "c" || av[0] != 0.5 || bv[1] != 0 {
		t.Errorf("Pair = %v %v %v", keys, av, bv)
	}
}
