package tau

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/pyval"
)

// The Python operations the tools perform, each raising what CPython 3.11
// raises for the same operands, by panicking with a *pyval.Exception that
// Invoke recovers into the reference's "Error: <str(e)>". They are written
// for JSON values (pyval.Value); a tool's Go code calls them where its Python
// applies the operator, in the same order, so that the first error and any
// writes made before it are the reference's.

type value = pyval.Value

func raise(typ, format string, args ...any) {
	panic(pyval.Errorf(typ, format, args...))
}

func tn(v value) string { return pyval.TypeName(v) }

// throw re-raises an error of pyval's text forms (an int past the digit
// limit) as the Python exception it is.
func throw(err error) {
	if e, ok := err.(*pyval.Exception); ok {
		panic(e)
	}
	panic(pyval.Errorf("RuntimeError", "%v", err))
}

func raiseKeyError(k value) {
	s, err := pyval.Repr(k)
	if err != nil {
		throw(err)
	}
	panic(&pyval.Exception{Type: "KeyError", Msg: s})
}

func checkHashable(k value) {
	switch k.(type) {
	case *pyval.List, *pyval.Dict:
		raise("TypeError", "unhashable type: '%s'", tn(k))
	}
}

// index converts a list or str index (an int) to a position, or raises.
func index(k value, n int, what string) (int, bool) {
	i, ok := pyval.AsInt64(k)
	if !ok {
		if _, isBig := k.(*big.Int); isBig {
			raise("IndexError", "cannot fit 'int' into an index-sized integer")
		}
		return 0, false
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		raise("IndexError", "%s index out of range", what)
	}
	return int(i), true
}

// getItem is c[k].
func getItem(c, k value) value {
	switch x := c.(type) {
	case *pyval.Dict:
		checkHashable(k)
		if s, ok := k.(string); ok {
			if v, ok := x.Get(s); ok {
				return v
			}
		}
		raiseKeyError(k)
	case *pyval.List:
		i, ok := index(k, len(x.Items), "list")
		if !ok {
			raise("TypeError", "list indices must be integers or slices, not %s", tn(k))
		}
		return x.Items[i]
	case string:
		rs := pyval.Runes(x)
		i, ok := index(k, len(rs), "string")
		if !ok {
			raise("TypeError", "string indices must be integers, not '%s'", tn(k))
		}
		return pyval.FromRunes(rs[i : i+1])
	}
	raise("TypeError", "'%s' object is not subscriptable", tn(c))
	return nil
}

// getStr is c[k] for a str key, the common case.
func getStr(c value, k string) value { return getItem(c, k) }

// setItem is c[k] = v for a str key.
func setItem(c value, k string, v value) {
	switch x := c.(type) {
	case *pyval.Dict:
		x.Set(k, v)
		return
	case *pyval.List:
		raise("TypeError", "list indices must be integers or slices, not str")
	}
	raise("TypeError", "'%s' object does not support item assignment", tn(c))
}

// delItem is del c[k].
func delItem(c, k value) {
	switch x := c.(type) {
	case *pyval.Dict:
		checkHashable(k)
		if s, ok := k.(string); ok && x.Delete(s) {
			return
		}
		raiseKeyError(k)
	case *pyval.List:
		raise("TypeError", "list indices must be integers or slices, not %s", tn(k))
	}
	raise("TypeError", "'%s' object does not support item deletion", tn(c))
}

// contains is x in c.
func contains(c, x value) bool {
	switch cc := c.(type) {
	case *pyval.Dict:
		checkHashable(x)
		s, ok := x.(string)
		return ok && cc.Has(s)
	case *pyval.List:
		for _, it := range cc.Items {
			if pyval.Equal(it, x) {
				return true
			}
		}
		return false
	case string:
		s, ok := x.(string)
		if !ok {
			raise("TypeError", "'in <string>' requires string as left operand, not %s", tn(x))
		}
		return strings.Contains(cc, s)
	}
	raise("TypeError", "argument of type '%s' is not iterable", tn(c))
	return false
}

// iterate is the sequence a for loop over v visits: a list's items, a
// dict's keys, a str's characters.
func iterate(v value) []value {
	switch x := v.(type) {
	case *pyval.List:
		return append([]value(nil), x.Items...)
	case *pyval.Dict:
		out := make([]value, x.Len())
		for i := range out {
			out[i] = x.Key(i)
		}
		return out
	case string:
		rs := pyval.Runes(x)
		out := make([]value, len(rs))
		for i := range rs {
			out[i] = pyval.FromRunes(rs[i : i+1])
		}
		return out
	}
	raise("TypeError", "'%s' object is not iterable", tn(v))
	return nil
}

// length is len(v).
func length(v value) int {
	switch x := v.(type) {
	case *pyval.List:
		return len(x.Items)
	case *pyval.Dict:
		return x.Len()
	case string:
		return pyval.Len(x)
	}
	raise("TypeError", "object of type '%s' has no len()", tn(v))
	return 0
}

// compare is a op b for op "<" or ">": numbers by value, strs by code
// point, lists lexicographically; anything else raises TypeError.
func compare(op string, a, b value) bool {
	if pyval.IsNumber(a) && pyval.IsNumber(b) {
		c, ok := pyval.CompareNumbers(a, b)
		if !ok {
			return false
		}
		if op == "<" {
			return c < 0
		}
		return c > 0
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			if op == "<" {
				return x < y
			}
			return x > y
		}
	case *pyval.List:
		if y, ok := b.(*pyval.List); ok {
			for i := 0; i < len(x.Items) && i < len(y.Items); i++ {
				if !pyval.Equal(x.Items[i], y.Items[i]) {
					return compare(op, x.Items[i], y.Items[i])
				}
			}
			if op == "<" {
				return len(x.Items) < len(y.Items)
			}
			return len(x.Items) > len(y.Items)
		}
	}
	raise("TypeError", "'%s' not supported between instances of '%s' and '%s'", op, tn(a), tn(b))
	return false
}

func lt(a, b value) bool { return compare("<", a, b) }
func gt(a, b value) bool { return compare(">", a, b) }

func isInt(v value) bool {
	switch v.(type) {
	case bool, int64, *big.Int:
		return true
	}
	return false
}

// toFloat is float(i) for an int, raising as CPython does when it is too
// large for a double.
func toFloat(v value) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			raise("OverflowError", "int too large to convert to float")
		}
		return f
	}
	i, _ := pyval.AsInt64(v)
	return float64(i)
}

// arith applies an arithmetic operator to two numbers, or reports false.
func arith(op byte, a, b value) (value, bool) {
	if !pyval.IsNumber(a) || !pyval.IsNumber(b) {
		return nil, false
	}
	if isInt(a) && isInt(b) {
		x, xok := pyval.AsInt64(a)
		y, yok := pyval.AsInt64(b)
		if xok && yok {
			switch op {
			case '+':
				if s := x + y; (s > x) == (y > 0) {
					return s, true
				}
			case '-':
				if s := x - y; (s < x) == (y > 0) {
					return s, true
				}
			case '*':
				if x == 0 || y == 0 {
					return int64(0), true
				}
				if p := x * y; p/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64) {
					return p, true
				}
			}
		}
		bx, by := pyval.BigOf(a), pyval.BigOf(b)
		switch op {
		case '+':
			bx.Add(bx, by)
		case '-':
			bx.Sub(bx, by)
		case '*':
			if bx.BitLen()+by.BitLen() > maxIntBits {
				raise("MemoryError", "")
			}
			bx.Mul(bx, by)
		}
		return pyval.NormInt(bx), true
	}
	x, y := toFloat(a), toFloat(b)
	switch op {
	case '+':
		return float64(x + y), true
	case '-':
		return float64(x - y), true
	}
	return float64(x * y), true
}

// maxIntBits bounds the ints products may build: past it Python would
// spend minutes or run out of memory; here it is a MemoryError at once.
const maxIntBits = 1 << 22

// maxRepeat bounds str and list repetition (Python's MemoryError).
const maxRepeat = 1 << 26

func unsupported(op string, a, b value) {
	raise("TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", op, tn(a), tn(b))
}

// add is a + b; inplace gives a += b's messages (and a list's extend).
func add(a, b value, inplace bool) value {
	if r, ok := arith('+', a, b); ok {
		return r
	}
	op := "+"
	if inplace {
		op = "+="
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x + y
		}
		raise("TypeError", "can only concatenate str (not \"%s\") to str", tn(b))
	case *pyval.List:
		if inplace {
			x.Items = append(x.Items, iterate(b)...)
			return x
		}
		if y, ok := b.(*pyval.List); ok {
			return pyval.NewList(append(append([]value(nil), x.Items...), y.Items...)...)
		}
		raise("TypeError", "can only concatenate list (not \"%s\") to list", tn(b))
	}
	unsupported(op, a, b)
	return nil
}

// sub is a - b (a -= b when inplace).
func sub(a, b value, inplace bool) value {
	if r, ok := arith('-', a, b); ok {
		return r
	}
	if inplace {
		unsupported("-=", a, b)
	}
	unsupported("-", a, b)
	return nil
}

// mul is a * b, sequence repetition included.
func mul(a, b value) value {
	if r, ok := arith('*', a, b); ok {
		return r
	}
	isSeq := func(v value) bool {
		switch v.(type) {
		case string, *pyval.List:
			return true
		}
		return false
	}
	var seq, n value
	switch {
	case isSeq(a):
		seq, n = a, b
	case isSeq(b):
		seq, n = b, a
	default:
		unsupported("*", a, b)
	}
	if !isInt(n) {
		raise("TypeError", "can't multiply sequence by non-int of type '%s'", tn(n))
	}
	count, ok := pyval.AsInt64(n)
	if !ok {
		raise("OverflowError", "cannot fit 'int' into an index-sized integer")
	}
	if count < 0 {
		count = 0
	}
	switch s := seq.(type) {
	case string:
		if count > 0 && int64(len(s)) > maxRepeat/count {
			raise("MemoryError", "")
		}
		return strings.Repeat(s, int(count))
	case *pyval.List:
		if count > 0 && int64(len(s.Items)) > maxRepeat/count {
			raise("MemoryError", "")
		}
		out := make([]value, 0, int64(len(s.Items))*count)
		for i := int64(0); i < count; i++ {
			out = append(out, s.Items...)
		}
		return pyval.NewList(out...)
	}
	return nil
}

// neg is -v.
func neg(v value) value {
	switch x := v.(type) {
	case float64:
		return -x
	case bool, int64, *big.Int:
		r, _ := arith('-', int64(0), x)
		return r
	}
	raise("TypeError", "bad operand type for unary -: '%s'", tn(v))
	return nil
}

// absOf is abs(v).
func absOf(v value) value {
	switch x := v.(type) {
	case float64:
		return math.Abs(x)
	case bool, int64, *big.Int:
		if lt(x, int64(0)) {
			return neg(x)
		}
		if i, ok := pyval.AsInt64(x); ok {
			return i // abs(True) is the int 1
		}
		return x
	}
	raise("TypeError", "bad operand type for abs(): '%s'", tn(v))
	return nil
}

// round2 is round(v, 2): a float rounded half-even on its exact value and
// read back (CPython's float.__round__), an int unchanged (a bool as int).
func round2(v value) value {
	switch x := v.(type) {
	case float64:
		return pyval.Round(x, 2)
	case bool, int64:
		i, _ := pyval.AsInt64(x)
		return i
	case *big.Int:
		return x
	}
	raise("TypeError", "type %s doesn't define __round__ method", tn(v))
	return nil
}

// maxOf is the builtin max(a, b): b replaces a only if b > a.
func maxOf(a, b value) value {
	if gt(b, a) {
		return b
	}
	return a
}

// sortedOf is sorted(v): CPython's list.sort comparisons (a run count,
// then binary insertion; exact for lists shorter than 64, the sizes where
// the order of comparisons decides which TypeError a mixed list raises).
func sortedOf(v value) *pyval.List {
	xs := iterate(v)
	n := len(xs)
	if n < 2 {
		return pyval.NewList(xs...)
	}
	// count_run
	run := 2
	if lt(xs[1], xs[0]) {
		for run < n && lt(xs[run], xs[run-1]) {
			run++
		}
		for i, j := 0, run-1; i < j; i, j = i+1, j-1 {
			xs[i], xs[j] = xs[j], xs[i]
		}
	} else {
		for run < n && !lt(xs[run], xs[run-1]) {
			run++
		}
	}
	// binarysort
	for start := run; start < n; start++ {
		pivot := xs[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)/2
			if lt(pivot, xs[p]) {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(xs[l+1:start+1], xs[l:start])
		xs[l] = pivot
	}
	return pyval.NewList(xs...)
}

// countIn is c.count(x). self is x's position in c when x was taken from
// c (Python's identity shortcut counts an object as equal to itself, which
// matters for NaN), else -1.
func countIn(c, x value, self int) int {
	switch cc := c.(type) {
	case *pyval.List:
		n := 0
		for i, it := range cc.Items {
			if i == self || pyval.Equal(it, x) {
				n++
			}
		}
		return n
	case string:
		s, ok := x.(string)
		if !ok {
			raise("TypeError", "must be str, not %s", tn(x))
		}
		if s == "" {
			return pyval.Len(cc) + 1
		}
		return strings.Count(cc, s)
	}
	raise("AttributeError", "'%s' object has no attribute 'count'", tn(c))
	return 0
}

// lowerOf is v.lower().
func lowerOf(v value) string {
	s, ok := v.(string)
	if !ok {
		raise("AttributeError", "'%s' object has no attribute 'lower'", tn(v))
	}
	return pyval.Lower(s)
}

// appendTo is c.append(x).
func appendTo(c, x value) {
	l, ok := c.(*pyval.List)
	if !ok {
		raise("AttributeError", "'%s' object has no attribute 'append'", tn(c))
	}
	l.Items = append(l.Items, x)
}

// extendWith is c.extend(xs) for a list xs.
func extendWith(c value, xs []value) {
	l, ok := c.(*pyval.List)
	if !ok {
		raise("AttributeError", "'%s' object has no attribute 'extend'", tn(c))
	}
	l.Items = append(l.Items, xs...)
}

// str is str(v), as an f-string's {v} prints it.
func str(v value) string {
	s, err := pyval.Str(v)
	if err != nil {
		throw(err)
	}
	return s
}

// dumps is json.dumps(v).
func dumps(v value) string {
	s, err := pyval.DumpJSON(v)
	if err != nil {
		throw(err)
	}
	return s
}

// lastTwo is v[-2:].
func lastTwo(v value) value {
	switch x := v.(type) {
	case string:
		rs := pyval.Runes(x)
		return pyval.FromRunes(rs[max(0, len(rs)-2):])
	case *pyval.List:
		return pyval.NewList(append([]value(nil), x.Items[max(0, len(x.Items)-2):]...)...)
	case *pyval.Dict:
		raise("TypeError", "unhashable type: 'slice'")
	}
	raise("TypeError", "'%s' object is not subscriptable", tn(v))
	return nil
}

// toInt is int(v) for the values a slice can give: a str parsed in base 10
// as CPython parses it (surrounding whitespace, a sign, digits of any
// script, single underscores between digits).
func toInt(v value) value {
	s, ok := v.(string)
	if !ok {
		switch v.(type) {
		case bool, int64, *big.Int:
			i, ok := pyval.AsInt64(v)
			if ok {
				return i
			}
			return v
		case float64:
			f := v.(float64)
			if math.IsNaN(f) {
				raise("ValueError", "cannot convert float NaN to integer")
			}
			if math.IsInf(f, 0) {
				raise("OverflowError", "cannot convert float infinity to integer")
			}
			b, _ := big.NewFloat(math.Trunc(f)).Int(nil)
			return pyval.NormInt(b)
		}
		raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '%s'", tn(v))
	}
	invalid := func() {
		r, err := pyval.Repr(s)
		if err != nil {
			throw(err)
		}
		raise("ValueError", "invalid literal for int() with base 10: %s", r)
	}
	var ascii []byte
	for _, r := range pyval.Runes(s) {
		switch {
		case r < 0x80:
			ascii = append(ascii, byte(r))
		case pyval.IsSpace(r):
			ascii = append(ascii, ' ')
		default:
			d, ok := pyval.DecimalValue(r)
			if !ok {
				invalid()
			}
			ascii = append(ascii, byte('0'+d))
		}
	}
	t := strings.TrimLeft(string(ascii), " \t\n\v\f\r")
	t = strings.TrimRight(t, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		invalid()
	}
	digits := strings.ReplaceAll(t, "_", "")
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			invalid()
		}
	}
	if len(digits) > pyval.MaxIntDigits {
		raise("ValueError", "Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", pyval.MaxIntDigits, len(digits))
	}
	if neg {
		digits = "-" + digits
	}
	if i, err := strconv.ParseInt(digits, 10, 64); err == nil {
		return i
	}
	b, _ := new(big.Int).SetString(digits, 10)
	return pyval.NormInt(b)
}
