package verifier

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// verdict is what re-checking a step finds.
type verdict int

const (
	unchecked verdict = iota // nothing in the step to re-check
	right
	wrong
)

// equation is one "left = right" a step states, with at least one
// operation on its left.
type equation struct {
	lhs     string
	value   float64 // the left side's value; NaN when it cannot be computed (÷0)
	rhs     float64
	rhsText string
	nums    []float64 // the left side's numbers, in order
}

// equations finds the equations a text states: "12 × 21 = 252",
// "<<48/2=24>>24", "(6 - 4) * (4 + 8) = 24". Dollar signs are skipped; a
// comma groups digits only between digits.
func equations(text string) []equation {
	var out []equation
	for i := 0; i < len(text); i++ {
		if text[i] != '=' {
			continue
		}
		lhs := leftOperand(text[:i])
		rhsText, ok := rightNumber(text[i+1:])
		if !ok || lhs == "" {
			continue
		}
		toks, ok := tokenize(lhs)
		// Drop leading tokens until the rest is an expression: "35, 42 - 35"
		// reads as "42 - 35".
		for ok && len(toks) > 0 {
			if v, nums, ops, good := evaluate(toks); good {
				if ops > 0 {
					rhs, _ := parseNumber(strings.ReplaceAll(rhsText, ",", ""))
					out = append(out, equation{lhs: lhs, value: v, rhs: rhs, rhsText: rhsText, nums: nums})
				}
				break
			}
			toks = toks[1:]
		}
	}
	return out
}

// holds reports whether the equation is true to the precision its right
// side is written with ("10 / 3 = 3.33" holds, "10 / 3 = 3.4" does not).
func (e equation) holds() bool {
	if math.IsNaN(e.value) || math.IsInf(e.value, 0) {
		return false
	}
	tol := 1e-9 * max(1, math.Abs(e.rhs))
	if dot := strings.IndexByte(e.rhsText, '.'); dot >= 0 {
		tol = max(tol, 0.5*math.Pow(10, -float64(len(e.rhsText)-dot-1))+1e-9)
	}
	return math.Abs(e.value-e.rhs) <= tol
}

// leftOperand is the arithmetic just before an "=": digits, operators,
// parentheses, points, spaces and dollar signs, and commas between digits.
func leftOperand(s string) string {
	j := len(s)
	for j > 0 {
		c := s[j-1]
		switch {
		case c >= '0' && c <= '9', strings.IndexByte("+-*/(). $", c) >= 0:
			j--
		case c == ',' && j >= 2 && j < len(s) && isDigit(s[j-2]) && isDigit(s[j]):
			j--
		case strings.HasSuffix(s[:j], "×"), strings.HasSuffix(s[:j], "÷"):
			j -= len("×")
		case strings.HasSuffix(s[:j], "−"):
			j -= len("−")
		default:
			return strings.TrimSpace(s[j:])
		}
	}
	return strings.TrimSpace(s[j:])
}

// rightNumber is the number just after an "=".
func rightNumber(s string) (string, bool) {
	s = strings.TrimLeft(s, " $")
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	j := 0
	for j < len(s) && (isDigit(s[j]) || s[j] == '.' || (s[j] == ',' && j > 0 && j+1 < len(s) && isDigit(s[j+1]))) {
		j++
	}
	num := strings.TrimRight(s[:j], ".,")
	if num == "" {
		return "", false
	}
	if k := len(num); k == j && k+1 < len(s) && s[k] == '/' && isDigit(s[k+1]) {
		// A fraction, as Game of 24's steps write one: "1/4".
		d := k + 1
		for d < len(s) && isDigit(s[d]) {
			d++
		}
		num = s[:d]
	}
	if neg {
		num = "-" + num
	}
	return num, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tokenize splits arithmetic into numbers, operators and parentheses.
func tokenize(s string) ([]string, bool) {
	s = strings.NewReplacer("×", "*", "÷", "/", "−", "-", "$", "", ",", "").Replace(s)
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case strings.IndexByte("+-*/()", c) >= 0:
			toks = append(toks, string(c))
			i++
		case isDigit(c) || c == '.':
			j := i
			for j < len(s) && (isDigit(s[j]) || s[j] == '.') {
				j++
			}
			if j+1 < len(s) && s[j] == '/' && isDigit(s[j+1]) {
				// "1/4" written tight is one number (Game of 24's
				// fractions: "6 / 1/4 = 24"); a division written tight
				// ("48/2") has the same value.
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			return nil, false
		}
	}
	return toks, true
}

// evaluate computes tokens with the usual precedence; ops counts the
// binary operations. good is false for anything that is not one whole
// expression.
func evaluate(toks []string) (v float64, nums []float64, ops int, good bool) {
	p := &parser{toks: toks}
	v, ok := p.sum()
	if !ok || p.i != len(toks) {
		return 0, nil, 0, false
	}
	return v, p.nums, p.ops, true
}

type parser struct {
	toks []string
	i    int
	nums []float64
	ops  int
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) sum() (float64, bool) {
	v, ok := p.product()
	for ok && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.i]
		p.i++
		var w float64
		if w, ok = p.product(); ok {
			p.ops++
			if op == "+" {
				v += w
			} else {
				v -= w
			}
		}
	}
	return v, ok
}

func (p *parser) product() (float64, bool) {
	v, ok := p.atom()
	for ok && (p.peek() == "*" || p.peek() == "/") {
		op := p.toks[p.i]
		p.i++
		var w float64
		if w, ok = p.atom(); ok {
			p.ops++
			if op == "*" {
				v *= w
			} else if w == 0 {
				v = math.NaN()
			} else {
				v /= w
			}
		}
	}
	return v, ok
}

func (p *parser) atom() (float64, bool) {
	switch t := p.peek(); {
	case t == "(":
		p.i++
		v, ok := p.sum()
		if !ok || p.peek() != ")" {
			return 0, false
		}
		p.i++
		return v, true
	case t == "-": // a negation: of a number, a negative number ("20 - -4")
		p.i++
		n := len(p.nums)
		v, ok := p.atom()
		if ok && len(p.nums) == n+1 && p.i > 0 && p.toks[p.i-1] != ")" {
			p.nums[n] = -p.nums[n]
		}
		return -v, ok
	case t != "" && (isDigit(t[0]) || t[0] == '.'):
		v, err := parseNumber(t)
		if err != nil {
			return 0, false
		}
		p.i++
		p.nums = append(p.nums, v)
		if strings.Contains(t, "/") { // "48/2" is a division as well as a number
			p.ops++
		}
		return v, true
	}
	return 0, false
}

// parseNumber reads a decimal or a fraction ("1/4", "-11/6").
func parseNumber(s string) (float64, error) {
	num, den, ok := strings.Cut(s, "/")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !ok {
		return v, err
	}
	d, err := strconv.ParseFloat(den, 64)
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return math.NaN(), nil
	}
	return v / d, nil
}

// puzzleNumbers are the numbers of a problem made of numbers only (Game of
// 24's "4 4 6 8"), or nil.
func puzzleNumbers(problem string) []float64 {
	f := strings.Fields(problem)
	if len(f) < 2 || len(f) > 6 {
		return nil
	}
	var out []float64
	for _, w := range f {
		v, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// leftNumbers reads a Game of 24 step's "(left: 4 6 12)" bookkeeping.
func leftNumbers(step string) ([]float64, bool) {
	i := strings.Index(step, "(left:")
	if i < 0 {
		return nil, false
	}
	rest, _, ok := strings.Cut(step[i+len("(left:"):], ")")
	if !ok {
		return nil, false
	}
	var out []float64
	for _, w := range strings.Fields(rest) {
		v, err := parseNumber(w)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// sameNumbers compares multisets of numbers.
func sameNumbers(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	for i := range x {
		if math.Abs(x[i]-y[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// without removes one occurrence of each of take from nums; ok is false if
// one is missing.
func without(nums []float64, take ...float64) ([]float64, bool) {
	out := slices.Clone(nums)
	for _, t := range take {
		i := slices.IndexFunc(out, func(v float64) bool { return math.Abs(v-t) < 1e-9 })
		if i < 0 {
			return nil, false
		}
		out = slices.Delete(out, i, i+1)
	}
	return out, true
}

// checker re-checks a solution's steps in order, keeping a Game of 24
// puzzle's remaining numbers.
type checker struct {
	input []float64 // the puzzle's numbers; nil for other problems
	left  []float64 // what remains after the steps so far
}

func newChecker(problem string) *checker {
	in := puzzleNumbers(problem)
	return &checker{input: in, left: slices.Clone(in)}
}

// check re-checks one step: every equation it states, and for a puzzle its
// bookkeeping (the two numbers combined must remain, and what it says is
// left must be what is) and a final "Answer:" (the puzzle's numbers, each
// once, making 24).
func (c *checker) check(step string) verdict {
	eqs := equations(step)
	if len(eqs) == 0 {
		return unchecked
	}
	for _, e := range eqs {
		if !e.holds() {
			return wrong
		}
	}
	if c.input == nil {
		return right
	}
	if strings.Contains(strings.ToLower(step), "answer") {
		e := eqs[len(eqs)-1]
		if math.Abs(e.rhs-24) > 1e-9 || !sameNumbers(e.nums, c.input) {
			return wrong
		}
		return right
	}
	if said, ok := leftNumbers(step); ok && len(eqs[0].nums) == 2 {
		rest, ok := without(c.left, eqs[0].nums...)
		if !ok || !sameNumbers(append(rest, eqs[0].rhs), said) {
			c.left = said
			return wrong
		}
		c.left = said
	}
	return right
}
