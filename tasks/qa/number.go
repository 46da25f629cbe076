package qa

import (
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number reading for the numeric scorer. Model output is hostile, so the
// scanner is linear in its input, allocates nothing for text without
// digits, and bounds what one number may be: at most maxDigits digits and
// an exponent within ±maxExponent ("1e999" is read exactly; "1e99999" is
// not a number). Recognised, anywhere in a text:
//
//   - digits in any Unicode script (category Nd: "١٢", fullwidth "１２"),
//     read by their value;
//   - a sign: "-" or "−" (U+2212) right before the digits, unless a letter
//     or digit precedes it ("3-4" is two numbers);
//   - thousands separators: "," between groups of exactly three digits
//     ("1,234,567"; "1,23" is 1 and 23);
//   - a decimal part (".5", "2.50"; "3." ending a sentence is 3);
//   - an exponent ("1.5e-3", "2E+10");
//   - a fraction of two plain integers ("3/4", "-7/2"); "x/0" is not a
//     number.
//
// Units and currency around a number ("$18", "50%", "12 kg") are not part
// of it, so they are dropped. Negative zero is zero.

// Bounds on one number.
const (
	maxDigits   = 1000
	maxExponent = 1000
)

// NumberSpan is one number found in a text: its value and byte offsets.
type NumberSpan struct {
	Value      *big.Rat
	Start, End int
}

// digitValue returns the value of a decimal digit in any script.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r < utf8.RuneSelf || !unicode.IsDigit(r) {
		return 0, false
	}
	// Nd digits come in runs of ten, zero first; find the start of the
	// contiguous run of digits r is in (runs may abut, so take it mod 10).
	// The longest run is 50 (mathematical digits), so this is bounded.
	zero := r
	for unicode.IsDigit(zero - 1) {
		zero--
	}
	return int(r-zero) % 10, true
}

// scanner walks a text rune by rune.
type scanner struct {
	s string
	i int
}

func (sc *scanner) peek() (rune, int) {
	if sc.i >= len(sc.s) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(sc.s[sc.i:])
}

// digits reads a run of digits into b; n counts them, ok is false when
// there are more than maxDigits.
func (sc *scanner) digits(b *strings.Builder) (n int, ok bool) {
	ok = true
	for {
		r, w := sc.peek()
		d, isDigit := digitValue(r)
		if !isDigit {
			return n, ok
		}
		n++
		if n > maxDigits {
			ok = false
		} else {
			b.WriteByte(byte('0' + d))
		}
		sc.i += w
	}
}

// Numbers returns every number in s, in order.
func Numbers(s string) []NumberSpan {
	var out []NumberSpan
	sc := &scanner{s: s}
	prev := rune(-1) // the rune before the current position
	for sc.i < len(s) {
		r, w := sc.peek()
		if _, ok := digitValue(r); !ok {
			prev = r
			sc.i += w
			continue
		}
		start := sc.i
		neg := false
		if prev == '-' || prev == '−' {
			before := rune(-1)
			signLen := utf8.RuneLen(prev)
			if start-signLen > 0 {
				before, _ = utf8.DecodeLastRuneInString(s[:start-signLen])
			}
			if !unicode.IsLetter(before) && !isDigitRune(before) {
				neg = true
				start -= signLen
			}
		}
		v, ok := sc.number()
		if ok {
			if neg {
				v.Neg(v)
			}
			out = append(out, NumberSpan{Value: v, Start: start, End: sc.i})
		}
		prev, _ = utf8.DecodeLastRuneInString(s[:sc.i])
	}
	return out
}

func isDigitRune(r rune) bool {
	_, ok := digitValue(r)
	return ok
}

// number reads one unsigned number at the scanner's position (a digit).
func (sc *scanner) number() (*big.Rat, bool) {
	var b strings.Builder
	n, ok := sc.digits(&b)
	// Thousands groups: ",ddd" repeatedly, only after 1-3 leading digits.
	if n <= 3 {
		for {
			r, w := sc.peek()
			if r != ',' {
				break
			}
			save := sc.i
			sc.i += w
			var g strings.Builder
			if gn, _ := sc.digits(&g); gn != 3 {
				sc.i = save
				break
			}
			if b.Len() >= maxDigits {
				ok = false
				continue
			}
			b.WriteString(g.String())
		}
	}
	intPart := b.String()
	// A fraction of two plain integers.
	if r, w := sc.peek(); r == '/' {
		save := sc.i
		sc.i += w
		if r2, _ := sc.peek(); isDigitRune(r2) {
			var d strings.Builder
			_, dok := sc.digits(&d)
			if !ok || !dok {
				return nil, false
			}
			num, _ := new(big.Int).SetString(intPart, 10)
			den, _ := new(big.Int).SetString(d.String(), 10)
			if den.Sign() == 0 {
				return nil, false
			}
			return new(big.Rat).SetFrac(num, den), true
		}
		sc.i = save
	}
	frac := ""
	if r, w := sc.peek(); r == '.' {
		save := sc.i
		sc.i += w
		if r2, _ := sc.peek(); isDigitRune(r2) {
			var f strings.Builder
			_, fok := sc.digits(&f)
			ok = ok && fok
			frac = f.String()
		} else {
			sc.i = save
		}
	}
	exp := 0
	if r, w := sc.peek(); r == 'e' || r == 'E' {
		save := sc.i
		sc.i += w
		sign := 1
		if r2, w2 := sc.peek(); r2 == '+' || r2 == '-' {
			if r2 == '-' {
				sign = -1
			}
			sc.i += w2
		}
		if r3, _ := sc.peek(); isDigitRune(r3) {
			var e strings.Builder
			en, _ := sc.digits(&e)
			if en > 5 {
				ok = false
			} else {
				for _, c := range e.String() {
					exp = exp*10 + int(c-'0')
				}
				exp *= sign
			}
			if r4, _ := sc.peek(); unicode.IsLetter(r4) { // "3e5x" is not an exponent
				sc.i = save
				exp = 0
			}
		} else {
			sc.i = save
		}
	}
	if !ok || exp > maxExponent || exp < -maxExponent {
		return nil, false
	}
	mant, _ := new(big.Int).SetString(intPart+frac, 10)
	exp -= len(frac)
	v := new(big.Rat).SetInt(mant)
	if exp != 0 {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
		if exp > 0 {
			v.Mul(v, new(big.Rat).SetInt(p))
		} else {
			v.Quo(v, new(big.Rat).SetInt(p))
		}
	}
	return v, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// LastNumber is the last number in s.
func LastNumber(s string) (*big.Rat, bool) {
	ns := Numbers(s)
	if len(ns) == 0 {
		return nil, false
	}
	return ns[len(ns)-1].Value, true
}

// ratKey writes a number as a vote key: an integer, or "p/q" in lowest
// terms.
func ratKey(v *big.Rat) string { return v.RatString() }
