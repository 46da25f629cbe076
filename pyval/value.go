// Package pyval holds Python values as json.loads builds them and prints
// them as CPython does, so that Go code can reproduce a Python reference's
// output byte for byte: tool results that are json.dumps of a dict, error
// messages that are str() of a value, database hashes that are SHA-256 of
// str() of a nested tuple.
//
// A Value is one of: nil (None), bool, int64 or *big.Int (int; a *big.Int
// only outside int64's range), float64 (float), string (str), *List, *Dict.
// int and float stay apart (250 and 250.0 print differently), dicts keep
// insertion order, and strings are Python's code point sequences stored as
// WTF-8: UTF-8 extended to the lone surrogates ("\ud800") that json.loads
// accepts, so every Python str has one exact Go form.
//
// The text forms:
//
//   - ParseJSON is json.loads (ordered objects, ints vs floats, NaN and
//     Infinity, big ints, CPython's error messages);
//   - AppendJSON is json.dumps with its defaults (separators ", " and ": ",
//     ensure_ascii=True, floats as repr, NaN/Infinity);
//   - AppendRepr and AppendStr are repr() and str() (quote choice, escapes by
//     str.isprintable of Python's Unicode tables, float repr, the 1-tuple);
//   - AppendHashable writes str() of a value after tau-bench's to_hashable
//     (dicts as sorted tuples of pairs, lists as tuples), the text its data
//     hash digests;
//   - Lower is str.lower (full case mapping, Final_Sigma).
//
// The Unicode tables (tables.go) are generated from CPython 3.11 itself
// (testdata/gen_tables.py), so printability and case follow its Unicode
// version, not Go's.
package pyval

import (
	"math"
	"math/big"
)

// Value is a Python value of the kinds json.loads produces: nil, bool, int64,
// *big.Int, float64, string, *List or *Dict.
type Value = any

// List is a Python list. It is a pointer type because Python lists are
// shared by reference: a tool that stores an argument list in the database
// and later appends to it appends to the one object.
type List struct {
	Items []Value
}

// NewList returns a list of the given items.
func NewList(items ...Value) *List { return &List{Items: items} }

// TypeName is type(v).__name__, as Python's error messages print it.
func TypeName(v Value) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	}
	return "object"
}

// Clone is copy.deepcopy of a value: lists and dicts are copied all the way
// down; scalars are immutable and shared.
func Clone(v Value) Value {
	switch x := v.(type) {
	case *List:
		items := make([]Value, len(x.Items))
		for i, it := range x.Items {
			items[i] = Clone(it)
		}
		return &List{Items: items}
	case *Dict:
		return x.Clone()
	}
	return v
}

// Truth is bool(v).
func Truth(v Value) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case *big.Int:
		return x.Sign() != 0
	case float64:
		return x != 0
	case string:
		return x != ""
	case *List:
		return len(x.Items) > 0
	case *Dict:
		return x.Len() > 0
	}
	return true
}

// IsNumber reports whether v is a bool, int or float: the values Python's
// arithmetic and numeric comparisons accept.
func IsNumber(v Value) bool {
	switch v.(type) {
	case bool, int64, *big.Int, float64:
		return true
	}
	return false
}

// Equal is Python's a == b for these values: numbers by value across bool,
// int and float (exactly, 2**53+1 != 2.0**53), strings by content, lists
// element-wise, dicts by their key-value pairs whatever the order; values of
// other differing types are unequal. NaN is unequal to everything, itself
// included (json.loads makes every NaN its own object, so Python's identity
// shortcut never applies between two of them).
func Equal(a, b Value) bool {
	if IsNumber(a) && IsNumber(b) {
		c, ok := CompareNumbers(a, b)
		return ok && c == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *List:
		y, ok := b.(*List)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if len(x.Items) != len(y.Items) {
			return false
		}
		for i := range x.Items {
			if !Equal(x.Items[i], y.Items[i]) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if x.Len() != y.Len() {
			return false
		}
		for i, k := range x.keys {
			w, ok := y.Get(k)
			if !ok || !Equal(x.vals[i], w) {
				return false
			}
		}
		return true
	}
	return false
}

// CompareNumbers compares two numbers (bool, int or float) exactly, as
// Python does: -1, 0 or +1, and ok false when either is NaN (every ordering
// comparison is then false). It panics if either is not a number.
func CompareNumbers(a, b Value) (c int, ok bool) {
	fa, aIsFloat := a.(float64)
	fb, bIsFloat := b.(float64)
	switch {
	case aIsFloat && bIsFloat:
		if math.IsNaN(fa) || math.IsNaN(fb) {
			return 0, false
		}
		return cmpFloat(fa, fb), true
	case !aIsFloat && !bIsFloat:
		return cmpInt(a, b), true
	case aIsFloat:
		if math.IsNaN(fa) {
			return 0, false
		}
		return -cmpIntFloat(b, fa), true
	default:
		if math.IsNaN(fb) {
			return 0, false
		}
		return cmpIntFloat(a, fb), true
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpInt compares two ints (bool, int64 or *big.Int).
func cmpInt(a, b Value) int {
	x, xSmall := AsInt64(a)
	y, ySmall := AsInt64(b)
	if xSmall && ySmall {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return BigOf(a).Cmp(BigOf(b))
}

// cmpIntFloat compares an int with a non-NaN float exactly.
func cmpIntFloat(i Value, f float64) int {
	if math.IsInf(f, 1) {
		return -1
	}
	if math.IsInf(f, -1) {
		return 1
	}
	if x, ok := AsInt64(i); ok && x >= -(1<<53) && x <= 1<<53 {
		return cmpFloat(float64(x), f)
	}
	bf := new(big.Float).SetInt(BigOf(i))
	return bf.Cmp(new(big.Float).SetFloat64(f))
}

// AsInt64 returns an int's value (bool as 0 or 1) when it fits in an int64.
func AsInt64(v Value) (int64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return x, true
	}
	return 0, false
}

// BigOf returns an int (bool, int64 or *big.Int) as a new big.Int.
func BigOf(v Value) *big.Int {
	if x, ok := v.(*big.Int); ok {
		return new(big.Int).Set(x)
	}
	x, _ := AsInt64(v)
	return big.NewInt(x)
}

// NormInt returns b as the Value form of an int: int64 when it fits.
func NormInt(b *big.Int) Value {
	if b.IsInt64() {
		return b.Int64()
	}
	return b
}
