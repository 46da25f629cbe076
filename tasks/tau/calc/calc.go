// Package calc is τ-bench's calculate tool without eval: the reference keeps
// expressions made of digits, + - * / ( ) . and spaces, evaluates them with
// Python's eval, converts the value to float, rounds it to two places and
// returns str() of that, or "Error: <str(exception)>". Evaluate reproduces
// that for every expression the filter lets through: Python's integer and
// float arithmetic (big ints, true and floor division, **, the empty tuple
// and Ellipsis that "()" and "..." are), its runtime errors, and the
// SyntaxErrors CPython 3.11's tokenizer and parser raise, as the same text.
//
// Limits where CPython's behaviour depends on its machine: an int past
// MaxIntBits raises MemoryError (CPython would compute 9**9**9 for hours);
// expressions nested deeper than CPython's parser stack or compiler
// recursion limit raise MemoryError or RecursionError at the depths a
// threaded tool call sees, approximately; float ** float uses Go's math.Pow
// (within an ulp of C's pow); complex values (a negative base to a
// fractional power) use Go's complex128 arithmetic: they always end in the
// same TypeError, only which error fires first could differ in contrived
// expressions.
package calc

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/pyval"
)

// Allowed is the reference's character filter.
const Allowed = "0123456789+-*/(). "

// MaxIntBits bounds the ints an expression may build.
const MaxIntBits = 1 << 22

// Evaluate returns what the reference's calculate tool returns for the
// string expression.
func Evaluate(expr string) string {
	for i := 0; i < len(expr); i++ {
		if strings.IndexByte(Allowed, expr[i]) < 0 {
			return "Error: invalid characters in expression"
		}
	}
	v, exc := run(expr)
	if exc != nil {
		return "Error: " + exc.Msg
	}
	return v
}

// run evaluates and formats, or returns the Python exception.
func run(expr string) (out string, exc *pyval.Exception) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*pyval.Exception)
			if !ok {
				panic(r)
			}
			out, exc = "", e
		}
	}()
	tree := parse(expr)
	v := eval(tree)
	f := toFloatArg(v)
	return pyval.FloatRepr(pyval.Round(f, 2)), nil
}

func raise(typ, format string, args ...any) {
	panic(pyval.Errorf(typ, format, args...))
}

// syntaxError raises SyntaxError as str() shows it for eval's input.
func syntaxError(msg string, line int) {
	panic(&pyval.Exception{Type: "SyntaxError", Msg: fmt.Sprintf("%s (<string>, line %d)", msg, line)})
}
