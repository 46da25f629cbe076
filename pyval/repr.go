package pyval

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// MaxIntDigits is CPython's default limit on int <-> str conversions
// (sys.get_int_max_str_digits()): longer ints raise ValueError.
const MaxIntDigits = 4300

// Exception is a Python exception as the reference would raise it: Type is
// the class name ("TypeError", "KeyError"), Msg is str(exception), the text
// an f"Error: {e}" shows.
type Exception struct {
	Type string
	Msg  string
}

func (e *Exception) Error() string { return e.Type + ": " + e.Msg }

// Errorf returns a Python exception of class typ with a formatted message.
func Errorf(typ, format string, args ...any) *Exception {
	return &Exception{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

func errIntTooLong() *Exception {
	return Errorf("ValueError", "Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", MaxIntDigits)
}

// AppendFloatRepr appends repr(f): the shortest digits that round-trip,
// positional when the decimal exponent is in [-4, 16), else d.ddde+XX;
// a ".0" on integral positional values; inf, -inf and nan.
func AppendFloatRepr(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if e[0] == '-' {
		dst = append(dst, '-')
		e = e[1:]
	}
	// e is d[.ddd]e±XX: split digits and exponent.
	var digits []byte
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits = append(digits, e[i])
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			dst = append(dst, '0', '.')
			for k := 0; k < -decpt; k++ {
				dst = append(dst, '0')
			}
			dst = append(dst, digits...)
		case decpt >= len(digits):
			dst = append(dst, digits...)
			for k := len(digits); k < decpt; k++ {
				dst = append(dst, '0')
			}
			dst = append(dst, '.', '0')
		default:
			dst = append(dst, digits[:decpt]...)
			dst = append(dst, '.')
			dst = append(dst, digits[decpt:]...)
		}
		return dst
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	if exp < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// FloatRepr is repr(f).
func FloatRepr(f float64) string { return string(AppendFloatRepr(nil, f)) }

// AppendInt appends str(i) of an int (bool counts as 0 or 1), or fails as
// CPython does past MaxIntDigits digits.
func AppendInt(dst []byte, v Value) ([]byte, error) {
	if x, ok := AsInt64(v); ok {
		return strconv.AppendInt(dst, x, 10), nil
	}
	b := v.(*big.Int)
	// A cheap bound first: bits*log10(2) digits, give or take one.
	if b.BitLen() > MaxIntDigits*3 {
		s := b.String()
		if n := len(s) - boolInt(b.Sign() < 0); n > MaxIntDigits {
			return dst, errIntTooLong()
		}
		return append(dst, s...), nil
	}
	return b.Append(dst, 10), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// AppendRepr appends repr(v). Lists print as [a, b], dicts as {'k': v},
// strings by AppendStrRepr, floats by AppendFloatRepr, None/True/False by
// name. The only error is an int past MaxIntDigits.
func AppendRepr(dst []byte, v Value) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "None"...), nil
	case bool:
		if x {
			return append(dst, "True"...), nil
		}
		return append(dst, "False"...), nil
	case int64, *big.Int:
		return AppendInt(dst, x)
	case float64:
		return AppendFloatRepr(dst, x), nil
	case string:
		return AppendStrRepr(dst, x), nil
	case *List:
		dst = append(dst, '[')
		for i, it := range x.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			var err error
			if dst, err = AppendRepr(dst, it); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *Dict:
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendStrRepr(dst, k)
			dst = append(dst, ": "...)
			var err error
			if dst, err = AppendRepr(dst, x.vals[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, Errorf("TypeError", "cannot represent a Go %T", v)
}

// Repr is repr(v).
func Repr(v Value) (string, error) {
	b, err := AppendRepr(nil, v)
	return string(b), err
}

// AppendStr appends str(v): a string as itself, anything else as its repr
// (what an f-string's {v} shows).
func AppendStr(dst []byte, v Value) ([]byte, error) {
	if s, ok := v.(string); ok {
		return append(dst, s...), nil
	}
	return AppendRepr(dst, v)
}

// Str is str(v).
func Str(v Value) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return Repr(v)
}

// Round is round(x, ndigits) for a float and ndigits >= 0, as CPython
// computes it: the decimal string correctly rounded (half to even on x's
// exact binary value) to ndigits places, read back; inf and nan unchanged.
func Round(x float64, ndigits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || ndigits > 323 {
		return x
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', max(ndigits, 0), 64), 64)
	return f
}
