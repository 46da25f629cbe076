package calc

import (
	"math"
	"math/big"
	"math/cmplx"
	"strconv"

	"github.com/reasonbench/reasonbench/pyval"
)

// The values an expression can take: ints (*big.Int), floats (float64),
// complex numbers (complex128, from a negative base to a fractional power),
// the empty tuple and Ellipsis.
type (
	tupleV    struct{}
	ellipsisV struct{}
)

func typeName(v any) string {
	switch v.(type) {
	case *big.Int:
		return "int"
	case float64:
		return "float"
	case complex128:
		return "complex"
	case tupleV:
		return "tuple"
	case ellipsisV:
		return "ellipsis"
	}
	return "object"
}

func eval(n *node) any {
	switch n.kind {
	case 'n':
		if n.num[len(n.num)-1] == '.' || containsDot(n.num) {
			f, _ := strconv.ParseFloat(n.num, 64)
			return f
		}
		b, _ := new(big.Int).SetString(n.num, 10)
		return b
	case 'e':
		return ellipsisV{}
	case 't':
		return tupleV{}
	case 'u':
		return unary(n.op, eval(n.left))
	case 'b':
		l := eval(n.left)
		r := eval(n.right)
		return binary(n.op, l, r)
	case 'c':
		f := eval(n.left)
		var arg any
		if n.right != nil {
			arg = eval(n.right)
		}
		return call(f, n.op, arg)
	}
	panic("calc: unknown node")
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

// str is str(v) as an error message shows a callee.
func str(v any) string {
	switch x := v.(type) {
	case *big.Int:
		s, err := pyval.AppendInt(nil, pyval.NormInt(x))
		if err != nil {
			panic(err)
		}
		return string(s)
	case float64:
		return pyval.FloatRepr(x)
	case complex128:
		return complexRepr(x)
	case tupleV:
		return "()"
	case ellipsisV:
		return "Ellipsis"
	}
	return "?"
}

// complexRepr is repr(complex): "(re+imj)", or "imj" when the real part is +0.
func complexRepr(c complex128) string {
	short := func(f float64) string {
		// repr's digits without the ".0" an integral float gets.
		s := pyval.FloatRepr(f)
		if len(s) > 2 && s[len(s)-2:] == ".0" {
			s = s[:len(s)-2]
		}
		return s
	}
	re, im := real(c), imag(c)
	if re == 0 && !math.Signbit(re) {
		return short(im) + "j"
	}
	ims := short(im)
	if ims[0] != '-' {
		ims = "+" + ims
	}
	return "(" + short(re) + ims + "j)"
}

func call(f any, form string, arg any) any {
	switch form {
	case "*":
		switch arg.(type) {
		case tupleV:
		default:
			raise("TypeError", "%s argument after * must be an iterable, not %s", str(f), typeName(arg))
		}
	case "**":
		raise("TypeError", "%s argument after ** must be a mapping, not %s", str(f), typeName(arg))
	}
	raise("TypeError", "'%s' object is not callable", typeName(f))
	return nil
}

func unary(op string, v any) any {
	switch x := v.(type) {
	case *big.Int:
		if op == "-" {
			return new(big.Int).Neg(x)
		}
		return x
	case float64:
		if op == "-" {
			return -x
		}
		return x
	case complex128:
		if op == "-" {
			return complex(-real(x), -imag(x))
		}
		return x
	}
	raise("TypeError", "bad operand type for unary %s: '%s'", op, typeName(v))
	return nil
}

func isNum(v any) bool {
	switch v.(type) {
	case *big.Int, float64, complex128:
		return true
	}
	return false
}

// toFloat is float(i) for an int, or OverflowError.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case *big.Int:
		if x.IsInt64() && x.Int64() > -(1<<53) && x.Int64() < 1<<53 {
			return float64(x.Int64())
		}
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			raise("OverflowError", "int too large to convert to float")
		}
		return f
	}
	panic("calc: not a real number")
}

func toComplex(v any) complex128 {
	if c, ok := v.(complex128); ok {
		return c
	}
	return complex(toFloat(v), 0)
}

// toFloatArg is float(v), the reference's conversion of eval's value.
func toFloatArg(v any) float64 {
	switch v.(type) {
	case *big.Int, float64:
		return toFloat(v)
	}
	raise("TypeError", "float() argument must be a string or a real number, not '%s'", typeName(v))
	return 0
}

func unsupported(op string, a, b any) {
	raise("TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(a), typeName(b))
}

func binary(op string, a, b any) any {
	if isNum(a) && isNum(b) {
		return arith(op, a, b)
	}
	_, aTuple := a.(tupleV)
	_, bTuple := b.(tupleV)
	switch op {
	case "+":
		if aTuple {
			if bTuple {
				return tupleV{}
			}
			raise("TypeError", "can only concatenate tuple (not \"%s\") to tuple", typeName(b))
		}
	case "*":
		if aTuple || bTuple {
			n := b
			if !aTuple {
				n = a
			}
			i, ok := n.(*big.Int)
			if !ok {
				raise("TypeError", "can't multiply sequence by non-int of type '%s'", typeName(n))
			}
			if !i.IsInt64() {
				raise("OverflowError", "cannot fit 'int' into an index-sized integer")
			}
			return tupleV{}
		}
	case "**":
		unsupported("** or pow()", a, b)
	}
	unsupported(op, a, b)
	return nil
}

func arith(op string, a, b any) any {
	ai, aInt := a.(*big.Int)
	bi, bInt := b.(*big.Int)
	if aInt && bInt {
		return intArith(op, ai, bi)
	}
	_, aC := a.(complex128)
	_, bC := b.(complex128)
	if aC || bC {
		return complexArith(op, a, b)
	}
	x, y := toFloat(a), toFloat(b)
	switch op {
	case "+":
		return float64(x + y)
	case "-":
		return float64(x - y)
	case "*":
		return float64(x * y)
	case "/":
		if y == 0 {
			raise("ZeroDivisionError", "float division by zero")
		}
		return float64(x / y)
	case "//":
		if y == 0 {
			raise("ZeroDivisionError", "float floor division by zero")
		}
		return floorDiv(x, y)
	}
	return floatPow(x, y)
}

func checkBits(b *big.Int) *big.Int {
	if b.BitLen() > MaxIntBits {
		raise("MemoryError", "")
	}
	return b
}

func intArith(op string, a, b *big.Int) any {
	switch op {
	case "+":
		return checkBits(new(big.Int).Add(a, b))
	case "-":
		return checkBits(new(big.Int).Sub(a, b))
	case "*":
		if a.BitLen()+b.BitLen() > MaxIntBits+1 {
			raise("MemoryError", "")
		}
		return checkBits(new(big.Int).Mul(a, b))
	case "/":
		if b.Sign() == 0 {
			raise("ZeroDivisionError", "division by zero")
		}
		if a.IsInt64() && b.IsInt64() && abs64(a.Int64()) <= 1<<53 && abs64(b.Int64()) <= 1<<53 {
			return float64(float64(a.Int64()) / float64(b.Int64()))
		}
		f, _ := new(big.Rat).SetFrac(a, b).Float64()
		if math.IsInf(f, 0) {
			raise("OverflowError", "integer division result too large for a float")
		}
		return f
	case "//":
		if b.Sign() == 0 {
			raise("ZeroDivisionError", "integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		}
		return q
	}
	// **
	if b.Sign() < 0 {
		return floatPow(toFloat(a), toFloat(b))
	}
	if a.BitLen() > 1 && (!b.IsInt64() || b.Int64() > MaxIntBits || int64(a.BitLen()-1)*b.Int64() > MaxIntBits) {
		raise("MemoryError", "")
	}
	if a.CmpAbs(big.NewInt(1)) <= 0 {
		// 0, 1 and -1 to any non-negative power.
		switch {
		case a.Sign() == 0 && b.Sign() == 0:
			return big.NewInt(1)
		case a.Sign() == 0:
			return big.NewInt(0)
		case a.Sign() > 0 || b.Bit(0) == 0:
			return big.NewInt(1)
		}
		return big.NewInt(-1)
	}
	return new(big.Int).Exp(a, b, nil)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// floorDiv is CPython's float floor division (_float_div_mod).
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			div -= 1.0
		}
	}
	if div != 0 {
		fd := math.Floor(div)
		if div-fd > 0.5 {
			fd += 1.0
		}
		return fd
	}
	return math.Copysign(0, vx/wx)
}

func isOddInteger(f float64) bool { return math.Mod(f, 2) == 1 || math.Mod(f, 2) == -1 }

// floatPow is CPython's float_pow.
func floatPow(iv, iw float64) any {
	switch {
	case iw == 0:
		return 1.0
	case math.IsNaN(iv):
		return iv
	case math.IsNaN(iw):
		if iv == 1.0 {
			return 1.0
		}
		return iw
	case math.IsInf(iw, 0):
		iv = math.Abs(iv)
		if iv == 1.0 {
			return 1.0
		}
		if (iw > 0) == (iv > 1.0) {
			return math.Abs(iw)
		}
		return 0.0
	case math.IsInf(iv, 0):
		odd := isOddInteger(iw)
		if iw > 0 {
			if odd {
				return iv
			}
			return math.Abs(iv)
		}
		if odd {
			return math.Copysign(0, iv)
		}
		return 0.0
	case iv == 0:
		odd := isOddInteger(iw)
		if iw < 0 {
			raise("ZeroDivisionError", "0.0 cannot be raised to a negative power")
		}
		if odd {
			return iv
		}
		return 0.0
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			return complexPow(complex(iv, 0), complex(iw, 0))
		}
		iv = -iv
		negate = isOddInteger(iw)
	}
	if iv == 1.0 {
		if negate {
			return -1.0
		}
		return 1.0
	}
	ix := powCorrect(iv, iw)
	if math.IsInf(ix, 0) {
		raise("OverflowError", "(34, 'Numerical result out of range')")
	}
	if negate {
		ix = -ix
	}
	return ix
}

// powCorrect is C's pow(x, y) for x > 0: exact then rounded when y is a
// small integer, else through 192-bit logarithm and exponential (hp.go).
func powCorrect(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) {
		return math.Pow(x, y)
	}
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		n := int64(math.Abs(y))
		bx := new(big.Float).SetPrec(0).SetFloat64(x)
		r := new(big.Float).SetPrec(uint(53*n + 64)).SetInt64(1)
		for i := int64(0); i < n; i++ {
			r.Mul(r, bx)
		}
		if y < 0 {
			q := new(big.Float).SetPrec(200).Quo(new(big.Float).SetPrec(200).SetInt64(1), r)
			f, _ := q.Float64()
			return f
		}
		f, _ := r.Float64()
		return f
	}
	return powFloat(x, y)
}

// cPow is C's pow for the modulus of a complex number (x >= 0).
func cPow(x, y float64) float64 {
	if x > 0 && !math.IsInf(x, 0) && !math.IsInf(y, 0) && !math.IsNaN(y) {
		return powCorrect(x, y)
	}
	return math.Pow(x, y)
}

// complexArith is arithmetic with a complex operand (CPython's complex
// object: naive product, Smith-style quotient).
func complexArith(op string, a, b any) any {
	if op == "//" {
		unsupported("//", a, b)
	}
	x, y := toComplex(a), toComplex(b)
	switch op {
	case "+":
		return complex(real(x)+real(y), imag(x)+imag(y))
	case "-":
		return complex(real(x)-real(y), imag(x)-imag(y))
	case "*":
		return cProd(x, y)
	case "/":
		q, ok := cQuot(x, y)
		if !ok {
			raise("ZeroDivisionError", "complex division by zero")
		}
		return q
	}
	return complexPow(x, y)
}

func cProd(a, b complex128) complex128 {
	return complex(float64(real(a)*real(b))-float64(imag(a)*imag(b)), float64(real(a)*imag(b))+float64(imag(a)*real(b)))
}

func cQuot(a, b complex128) (complex128, bool) {
	absBr, absBi := math.Abs(real(b)), math.Abs(imag(b))
	switch {
	case absBr >= absBi:
		if absBr == 0 {
			return 0, false
		}
		ratio := imag(b) / real(b)
		denom := real(b) + imag(b)*ratio
		return complex((real(a)+imag(a)*ratio)/denom, (imag(a)-real(a)*ratio)/denom), true
	case absBi >= absBr:
		ratio := real(b) / imag(b)
		denom := real(b)*ratio + imag(b)
		return complex((real(a)*ratio+imag(a))/denom, (imag(a)*ratio-real(a))/denom), true
	}
	return complex(math.NaN(), math.NaN()), true
}

// complexPow is CPython's complex_pow.
func complexPow(a, b complex128) any {
	var p complex128
	edom := false
	if imag(b) == 0 && real(b) == math.Floor(real(b)) && math.Abs(real(b)) <= 100 {
		n := int64(real(b))
		powu := func(x complex128, n int64) complex128 {
			r, q := complex(1, 0), x
			for mask := int64(1); mask > 0 && n >= mask; mask <<= 1 {
				if n&mask != 0 {
					r = cProd(r, q)
				}
				q = cProd(q, q)
			}
			return r
		}
		if n > 0 {
			p = powu(a, n)
		} else {
			var ok bool
			p, ok = cQuot(complex(1, 0), powu(a, -n))
			edom = !ok
		}
	} else {
		switch {
		case real(b) == 0 && imag(b) == 0:
			p = complex(1, 0)
		case real(a) == 0 && imag(a) == 0:
			if imag(b) != 0 || real(b) < 0 {
				edom = true
			}
			p = 0
		default:
			vabs := math.Hypot(real(a), imag(a))
			l := cPow(vabs, real(b))
			at := math.Atan2(imag(a), real(a))
			phase := at * real(b)
			if imag(b) != 0 {
				l /= math.Exp(at * imag(b))
				phase += imag(b) * math.Log(vabs)
			}
			sin, cos := sinCos(phase)
			p = complex(l*cos, l*sin)
		}
	}
	if edom {
		raise("ZeroDivisionError", "0.0 to a negative or complex power")
	}
	if math.IsInf(real(p), 0) || math.IsInf(imag(p), 0) || cmplx.IsInf(p) {
		raise("OverflowError", "complex exponentiation")
	}
	return p
}
