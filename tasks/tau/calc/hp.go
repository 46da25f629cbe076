package calc

import (
	"math"
	"math/big"
	"sync"
)

// C's pow, exp, log, sin and cos as glibc computes them are correctly
// rounded in all but vanishingly rare cases; Go's math package is off by an
// ulp now and then (1.5**1000). These compute in 192-bit binary floating
// point and round once, which agrees with glibc wherever the exact result is
// not within 2**-130 of a rounding boundary.

const hpPrec = 192

func hp(x float64) *big.Float { return new(big.Float).SetPrec(hpPrec).SetFloat64(x) }

func hpInt(i int64) *big.Float { return new(big.Float).SetPrec(hpPrec).SetInt64(i) }

var hpConst = sync.OnceValues(func() (ln2, pi *big.Float) {
	// ln 2 = 2 atanh(1/3).
	ln2 = atanhSeries(new(big.Float).SetPrec(hpPrec).Quo(hpInt(1), hpInt(3)))
	ln2.Mul(ln2, hpInt(2))
	pi, _ = new(big.Float).SetPrec(hpPrec).SetString("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651")
	return ln2, pi
})

// atanhSeries is atanh(z) = z + z^3/3 + z^5/5 + ... for small |z|.
func atanhSeries(z *big.Float) *big.Float {
	z2 := new(big.Float).SetPrec(hpPrec).Mul(z, z)
	term := new(big.Float).SetPrec(hpPrec).Set(z)
	sum := new(big.Float).SetPrec(hpPrec).Set(z)
	for k := int64(3); k < 400; k += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(hpPrec).Quo(term, hpInt(k))
		if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -hpPrec-8 {
			break
		}
		sum.Add(sum, t)
	}
	return sum
}

// hpLog is ln(x) for x > 0.
func hpLog(x *big.Float) *big.Float {
	ln2, _ := hpConst()
	m := new(big.Float).SetPrec(hpPrec)
	e := x.MantExp(m) // x = m * 2**e, m in [0.5, 1)
	if m.Cmp(hp(math.Sqrt2/2)) < 0 {
		m.Mul(m, hpInt(2))
		e--
	}
	num := new(big.Float).SetPrec(hpPrec).Sub(m, hpInt(1))
	den := new(big.Float).SetPrec(hpPrec).Add(m, hpInt(1))
	r := atanhSeries(num.Quo(num, den))
	r.Mul(r, hpInt(2))
	return r.Add(r, new(big.Float).SetPrec(hpPrec).Mul(ln2, hpInt(int64(e))))
}

// hpExp is e**t, or ok false when t is beyond float64's range either way.
func hpExp(t *big.Float) (*big.Float, bool) {
	ln2, _ := hpConst()
	if tf, _ := t.Float64(); math.Abs(tf) > 800 {
		return nil, false
	}
	kf, _ := new(big.Float).Quo(t, ln2).Float64()
	k := int64(math.Round(kf))
	r := new(big.Float).SetPrec(hpPrec).Sub(t, new(big.Float).SetPrec(hpPrec).Mul(ln2, hpInt(k)))
	// exp(r) = exp(r/256)**256.
	const halvings = 8
	r.SetMantExp(r, -halvings)
	sum := hpInt(1)
	term := hpInt(1)
	for n := int64(1); n < 60; n++ {
		term.Mul(term, r)
		term.Quo(term, hpInt(n))
		if term.Sign() == 0 || term.MantExp(nil) < -hpPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k)), true
}

// powFloat is C's pow(x, y) for finite x > 0 and finite y.
func powFloat(x, y float64) float64 {
	t := hpLog(hp(x))
	t.Mul(t, hp(y))
	e, ok := hpExp(t)
	if !ok {
		if t.Sign() > 0 {
			return math.Inf(1)
		}
		return 0
	}
	f, _ := e.Float64()
	return f
}

// sinCos is C's sin(x) and cos(x) for finite x.
func sinCos(x float64) (float64, float64) {
	if math.Abs(x) > 1<<40 {
		return math.Sin(x), math.Cos(x)
	}
	_, pi := hpConst()
	halfPi := new(big.Float).SetPrec(hpPrec).Quo(pi, hpInt(2))
	nf, _ := new(big.Float).Quo(hp(x), halfPi).Float64()
	n := int64(math.Round(nf))
	r := new(big.Float).SetPrec(hpPrec).Sub(hp(x), new(big.Float).SetPrec(hpPrec).Mul(halfPi, hpInt(n)))
	// Taylor series of sin and cos at r, |r| <= pi/4.
	r2 := new(big.Float).SetPrec(hpPrec).Mul(r, r)
	s, c := new(big.Float).SetPrec(hpPrec).Set(r), hpInt(1)
	ts, tc := new(big.Float).SetPrec(hpPrec).Set(r), hpInt(1)
	for k := int64(1); k < 60; k++ {
		ts.Mul(ts, r2)
		ts.Quo(ts, hpInt(-(2*k)*(2*k+1)))
		tc.Mul(tc, r2)
		tc.Quo(tc, hpInt(-(2*k-1)*(2*k)))
		s.Add(s, ts)
		c.Add(c, tc)
		if tc.Sign() == 0 || tc.MantExp(nil) < -hpPrec-8 {
			break
		}
	}
	sf, _ := s.Float64()
	cf, _ := c.Float64()
	switch ((n % 4) + 4) % 4 {
	case 0:
		return sf, cf
	case 1:
		return cf, -sf
	case 2:
		return -sf, -cf
	}
	return -cf, sf
}
