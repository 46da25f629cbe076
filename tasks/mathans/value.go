package mathans

import (
	"errors"
	"math"
	"math/big"
	"math/cmplx"
)

// num is a complex number, exact (Gaussian rationals) while every operation
// that made it was exact, a complex128 once one was not (a root that is not
// a perfect power, π, a transcendental function).
type num struct {
	exact  bool
	re, im *big.Rat   // when exact
	c      complex128 // when not
}

// Limits on exact arithmetic: beyond them a value becomes a float or the
// evaluation fails, so a hostile answer (10^{10^{10}}, 100000!) costs little.
const (
	maxExactBits = 1 << 15 // numerator or denominator size of an exact value (2006! has 19,000 bits)
	maxFactorial = 3000    // n! computed exactly up to here (3000! has 30,300 bits)
	maxIntPower  = 1 << 12 // |n| of an exact power a^n
)

var (
	errDomain   = errors.New("undefined") // division by zero, 0^-1, a non-finite float
	errTooLarge = errors.New("too large")
)

func ratNum(r *big.Rat) num { return num{exact: true, re: r, im: new(big.Rat)} }
func intNum(n int64) num    { return ratNum(new(big.Rat).SetInt64(n)) }
func floatNum(c complex128) num {
	return num{c: c}
}

func (a num) complex() complex128 {
	if !a.exact {
		return a.c
	}
	re, _ := a.re.Float64()
	im, _ := a.im.Float64()
	return complex(re, im)
}

func (a num) isReal() bool {
	if a.exact {
		return a.im.Sign() == 0
	}
	return imag(a.c) == 0
}

func (a num) isZero() bool {
	if a.exact {
		return a.re.Sign() == 0 && a.im.Sign() == 0
	}
	return a.c == 0
}

// integer returns the value as an int64 when it is an exact real integer
// of modest size.
func (a num) integer() (int64, bool) {
	if !a.exact || a.im.Sign() != 0 || !a.re.IsInt() || a.re.Num().BitLen() > 62 {
		return 0, false
	}
	return a.re.Num().Int64(), true
}

func tooBig(r *big.Rat) bool {
	return r.Num().BitLen() > maxExactBits || r.Denom().BitLen() > maxExactBits
}

// check turns an oversized exact value into a float and refuses
// non-finite floats.
func check(a num) (num, error) {
	if a.exact {
		if tooBig(a.re) || tooBig(a.im) {
			return floatOf(a)
		}
		return a, nil
	}
	if cmplx.IsNaN(a.c) || cmplx.IsInf(a.c) {
		return num{}, errDomain
	}
	return a, nil
}

// floatOf converts to a float, failing when the value does not fit.
func floatOf(a num) (num, error) {
	c := a.complex()
	if cmplx.IsNaN(c) || cmplx.IsInf(c) {
		return num{}, errTooLarge
	}
	return floatNum(c), nil
}

func add(a, b num) (num, error) {
	if a.exact && b.exact {
		return check(num{exact: true, re: new(big.Rat).Add(a.re, b.re), im: new(big.Rat).Add(a.im, b.im)})
	}
	return check(floatNum(a.complex() + b.complex()))
}

func neg(a num) num {
	if a.exact {
		return num{exact: true, re: new(big.Rat).Neg(a.re), im: new(big.Rat).Neg(a.im)}
	}
	return floatNum(-a.c)
}

func sub(a, b num) (num, error) { return add(a, neg(b)) }

func mul(a, b num) (num, error) {
	if a.exact && b.exact {
		if tooBig(a.re) || tooBig(b.re) { // before the product, not after
			return mul(floatNum(a.complex()), floatNum(b.complex()))
		}
		re := new(big.Rat).Sub(new(big.Rat).Mul(a.re, b.re), new(big.Rat).Mul(a.im, b.im))
		im := new(big.Rat).Add(new(big.Rat).Mul(a.re, b.im), new(big.Rat).Mul(a.im, b.re))
		return check(num{exact: true, re: re, im: im})
	}
	return check(floatNum(a.complex() * b.complex()))
}

func div(a, b num) (num, error) {
	if b.isZero() {
		return num{}, errDomain
	}
	if a.exact && b.exact {
		// a / (x+iy) = a (x-iy) / (x²+y²)
		d := new(big.Rat).Add(new(big.Rat).Mul(b.re, b.re), new(big.Rat).Mul(b.im, b.im))
		conj := num{exact: true, re: new(big.Rat).Quo(b.re, d), im: new(big.Rat).Neg(new(big.Rat).Quo(b.im, d))}
		return mul(a, conj)
	}
	return check(floatNum(a.complex() / b.complex()))
}

// pow is exact for an exact base and a modest integer exponent, and for
// exact real roots that are perfect powers (4^{1/2}, 8^{2/3}); otherwise
// the principal complex power.
func pow(a, b num) (num, error) {
	if n, ok := b.integer(); ok && a.exact && n >= -maxIntPower && n <= maxIntPower {
		if n < 0 {
			p, err := pow(a, intNum(-n))
			if err != nil {
				return num{}, err
			}
			return div(intNum(1), p)
		}
		// Refuse before computing a power whose size is out of bounds.
		bits := max(a.re.Num().BitLen(), a.re.Denom().BitLen(), a.im.Num().BitLen(), a.im.Denom().BitLen())
		if int64(bits)*n > maxExactBits*2 {
			return check(floatNum(cmplx.Pow(a.complex(), complex(float64(n), 0))))
		}
		r := intNum(1)
		base := a
		var err error
		for e := n; e > 0; e >>= 1 {
			if e&1 == 1 {
				if r, err = mul(r, base); err != nil {
					return num{}, err
				}
			}
			if e > 1 {
				if base, err = mul(base, base); err != nil {
					return num{}, err
				}
			}
		}
		return r, nil
	}
	if a.exact && b.exact && a.isReal() && b.isReal() && a.re.Sign() >= 0 && !b.re.IsInt() {
		// p/q power of a non-negative rational: exact when the q-th root is.
		q := b.re.Denom()
		if q.IsInt64() && q.Int64() <= 64 {
			if root, ok := ratRoot(a.re, q.Int64()); ok {
				return pow(ratNum(root), ratNum(new(big.Rat).SetInt(b.re.Num())))
			}
		}
	}
	if a.isZero() {
		if b.isReal() && real(b.complex()) > 0 {
			return intNum(0), nil
		}
		return num{}, errDomain
	}
	ac, bc := a.complex(), b.complex()
	if imag(ac) == 0 && real(ac) < 0 && imag(bc) == 0 {
		// A real odd root of a negative number is real (∛-8 = -2), as a
		// reader of MATH answers means it.
		if fb := real(bc); fb != 0 && math.Abs(1/fb-math.Round(1/fb)) < 1e-12 && int64(math.Round(1/fb))%2 != 0 {
			return check(floatNum(complex(-math.Pow(-real(ac), fb), 0)))
		}
	}
	return check(floatNum(cmplx.Pow(ac, bc)))
}

// ratRoot is the exact k-th root of a non-negative rational, if it has one.
func ratRoot(r *big.Rat, k int64) (*big.Rat, bool) {
	n, okN := intRoot(r.Num(), k)
	d, okD := intRoot(r.Denom(), k)
	if !okN || !okD {
		return nil, false
	}
	return new(big.Rat).SetFrac(n, d), true
}

func intRoot(x *big.Int, k int64) (*big.Int, bool) {
	if x.Sign() < 0 || x.BitLen() > maxExactBits {
		return nil, false
	}
	if k == 2 {
		s := new(big.Int).Sqrt(x)
		return s, new(big.Int).Mul(s, s).Cmp(x) == 0
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	guess := int64(math.Round(math.Pow(f, 1/float64(k))))
	for g := guess - 1; g <= guess+1; g++ {
		if g < 0 {
			continue
		}
		c := new(big.Int).Exp(big.NewInt(g), big.NewInt(k), nil)
		if c.Cmp(x) == 0 {
			return big.NewInt(g), true
		}
	}
	return nil, false
}

func factorial(a num) (num, error) {
	n, ok := a.integer()
	if !ok || n < 0 {
		return num{}, errDomain // Γ of anything else is not in MATH answers
	}
	if n > maxFactorial {
		return num{}, errTooLarge
	}
	f := new(big.Int).MulRange(1, max(n, 1))
	r := new(big.Rat).SetInt(f)
	if r.Num().BitLen() > maxExactBits {
		return num{}, errTooLarge
	}
	return num{exact: true, re: r, im: new(big.Rat)}, nil
}

// near reports whether two values are equal: exactly when both are exact,
// else within a relative tolerance that absorbs floating-point error only
// (a decimal approximation of √2 is not √2).
func near(a, b num) bool {
	if a.exact && b.exact {
		return a.re.Cmp(b.re) == 0 && a.im.Cmp(b.im) == 0
	}
	x, y := a.complex(), b.complex()
	d := cmplx.Abs(x - y)
	return d <= 1e-9*math.Max(cmplx.Abs(x), cmplx.Abs(y)) || d <= 1e-13
}

// key is a canonical text of a value: exact values in lowest terms, floats
// to 9 significant digits.
func (a num) key() string {
	if a.exact {
		if a.im.Sign() == 0 {
			return a.re.RatString()
		}
		return a.re.RatString() + "+" + a.im.RatString() + "i"
	}
	re, im := real(a.c), imag(a.c)
	s := fmtFloat(re)
	if math.Abs(im) > 1e-12*math.Max(1, math.Abs(re)) {
		s += "+" + fmtFloat(im) + "i"
	}
	return s
}

func fmtFloat(f float64) string {
	if math.Abs(f) < 1e-12 {
		return "0"
	}
	// A float equal to a small rational prints as that rational, so √4's
	// float and 2 share a key.
	for _, d := range []int64{1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 100} {
		n := math.Round(f * float64(d))
		if math.Abs(n/float64(d)-f) <= 1e-12*math.Max(1, math.Abs(f)) && math.Abs(n) < 1e15 {
			return new(big.Rat).SetFrac64(int64(n), d).RatString()
		}
	}
	return big.NewFloat(f).Text('g', 9)
}
