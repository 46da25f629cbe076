package game24

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxStepLen is the longest line, in bytes, that ParseStep accepts.
const MaxStepLen = 1000

// Step is one parsed step line of a tree search, e.g.
// "4 * 5 = 20 (left: 6 10 20)". Numbers are as the model wrote them.
type Step struct {
	A, B    *big.Rat
	Op      byte       // '+', '-', '*', '/'
	Result  *big.Rat   // as written by the model (may be wrong!)
	Left    []*big.Rat // as written
	HasLeft bool       // whether a "(left: ...)" part was present

	// ADecimals, BDecimals and ResultDecimals are the digits written after a
	// decimal point in A, B and Result (0 for integers and fractions). Apply
	// accepts such a number where it equals an exact value rounded to that
	// many places.
	ADecimals, BDecimals, ResultDecimals int
}

// ParseStep reads a step line "A op B = R (left: x y z)".
//
// Accepted: surrounding and extra whitespace; ops + - * / and × ÷ −; "≈" in
// place of "="; numbers written as integers, decimals ("2.67"), fractions
// ("8/3", also "(8/3)" or "(8 / 3)"), with an optional leading '-' or '−' for
// negatives; a missing "(left: ...)" part (Left=nil, HasLeft=false); the
// word "left" in any case; commas between left numbers; a missing final ')'.
// A left-hand side written as a bare fraction ("8/3 = 2.67") reads as 8 / 3.
// Text after the closing ')' is ignored. Anything else is an error, as are
// lines longer than MaxStepLen and fractions with a zero denominator.
func ParseStep(line string) (Step, error) {
	if len(line) > MaxStepLen {
		return Step{}, fmt.Errorf("step line too long (%d bytes; max %d)", len(line), MaxStepLen)
	}
	if !utf8.ValidString(line) {
		return Step{}, errors.New("step line is not valid UTF-8")
	}
	sc := &stepScanner{s: line}
	var st Step
	a, err := sc.operand()
	if err != nil {
		return Step{}, fmt.Errorf("first operand: %w", err)
	}
	sc.space()
	if a.bare && a.frac && sc.eq() {
		// "8/3 = 2.67": a bare fraction is the division itself.
		st.A, st.Op, st.B = a.num, '/', a.den
		st.ADecimals, st.BDecimals = a.numDec, a.denDec
	} else {
		op, ok := sc.op()
		if !ok {
			return Step{}, fmt.Errorf("expected an operator at offset %d", sc.pos)
		}
		b, err := sc.operand()
		if err != nil {
			return Step{}, fmt.Errorf("second operand: %w", err)
		}
		sc.space()
		if !sc.eq() {
			return Step{}, fmt.Errorf("expected '=' at offset %d", sc.pos)
		}
		st.A, st.Op, st.B = a.value, op, b.value
		st.ADecimals, st.BDecimals = a.decimals, b.decimals
	}
	res, err := sc.operand()
	if err != nil {
		return Step{}, fmt.Errorf("result: %w", err)
	}
	st.Result, st.ResultDecimals = res.value, res.decimals
	sc.space()
	if sc.done() {
		return st, nil
	}
	if !sc.lit("(") {
		return Step{}, fmt.Errorf("unexpected text after the result at offset %d", sc.pos)
	}
	sc.space()
	if !sc.foldLit("left") {
		return Step{}, fmt.Errorf("expected \"(left:\" at offset %d", sc.pos)
	}
	sc.space()
	if !sc.lit(":") {
		return Step{}, fmt.Errorf("expected ':' after \"left\" at offset %d", sc.pos)
	}
	st.HasLeft = true
	st.Left = []*big.Rat{}
	for {
		sc.space()
		if sc.lit(",") {
			continue
		}
		if sc.done() || sc.lit(")") {
			return st, nil
		}
		n, err := sc.operand()
		if err != nil {
			return Step{}, fmt.Errorf("left: %w", err)
		}
		st.Left = append(st.Left, n.value)
	}
}

type stepScanner struct {
	s   string
	pos int
}

func (sc *stepScanner) done() bool { return sc.pos >= len(sc.s) }

func (sc *stepScanner) space() {
	for sc.pos < len(sc.s) {
		r, size := utf8.DecodeRuneInString(sc.s[sc.pos:])
		if !unicode.IsSpace(r) {
			return
		}
		sc.pos += size
	}
}

func (sc *stepScanner) lit(p string) bool {
	if strings.HasPrefix(sc.s[sc.pos:], p) {
		sc.pos += len(p)
		return true
	}
	return false
}

func (sc *stepScanner) foldLit(p string) bool {
	if len(sc.s)-sc.pos >= len(p) && strings.EqualFold(sc.s[sc.pos:sc.pos+len(p)], p) {
		sc.pos += len(p)
		return true
	}
	return false
}

// eq consumes "=" or "≈".
func (sc *stepScanner) eq() bool { return sc.lit("=") || sc.lit("≈") }

func (sc *stepScanner) op() (byte, bool) {
	sc.space()
	if sc.done() {
		return 0, false
	}
	r, size := utf8.DecodeRuneInString(sc.s[sc.pos:])
	var op byte
	switch r {
	case '+':
		op = '+'
	case '-', '\u2212':
		op = '-'
	case '*', '\u00d7':
		op = '*'
	case '/', '\u00f7':
		op = '/'
	default:
		return 0, false
	}
	sc.pos += size
	return op, true
}

// stepNum is one number as written in a step line.
type stepNum struct {
	value    *big.Rat
	decimals int // digits after the decimal point; 0 for fractions
	// For a fraction p/q written without spaces or parentheses: bare and
	// frac are set and num, den (with their decimals) hold p and q.
	bare, frac     bool
	num, den       *big.Rat
	numDec, denDec int
}

// operand reads a number, a fraction "p/q", or "(p/q)" / "(p / q)" / "(n)".
func (sc *stepScanner) operand() (stepNum, error) {
	sc.space()
	if sc.lit("(") {
		sc.space()
		p, pd, err := sc.decimal(true)
		if err != nil {
			return stepNum{}, err
		}
		sc.space()
		v := p
		dec := pd
		if sc.lit("/") || sc.lit("÷") {
			sc.space()
			q, _, err := sc.decimal(true)
			if err != nil {
				return stepNum{}, err
			}
			if q.Sign() == 0 {
				return stepNum{}, errDivZero
			}
			v, dec = new(big.Rat).Quo(p, q), 0
			sc.space()
		}
		if !sc.lit(")") {
			return stepNum{}, fmt.Errorf("expected ')' at offset %d", sc.pos)
		}
		return stepNum{value: v, decimals: dec}, nil
	}
	p, pd, err := sc.decimal(true)
	if err != nil {
		return stepNum{}, err
	}
	// A fraction must be written without spaces: "8/3".
	if sc.pos+1 < len(sc.s) && sc.s[sc.pos] == '/' && isDigit(sc.s[sc.pos+1]) {
		sc.pos++
		q, qd, err := sc.decimal(false)
		if err != nil {
			return stepNum{}, err
		}
		if q.Sign() == 0 {
			return stepNum{}, errDivZero
		}
		return stepNum{value: new(big.Rat).Quo(p, q), bare: true, frac: true,
			num: p, den: q, numDec: pd, denDec: qd}, nil
	}
	return stepNum{value: p, decimals: pd, bare: true}, nil
}

// decimal reads [sign] digits [. digits], returning the value and the number
// of digits after the point.
func (sc *stepScanner) decimal(signed bool) (*big.Rat, int, error) {
	start := sc.pos
	neg := false
	if signed {
		if sc.lit("-") || sc.lit("\u2212") {
			neg = true
		}
	}
	i := sc.pos
	for i < len(sc.s) && isDigit(sc.s[i]) {
		i++
	}
	if i == sc.pos {
		return nil, 0, fmt.Errorf("expected a number at offset %d", start)
	}
	intPart := sc.s[sc.pos:i]
	frac := ""
	if i+1 < len(sc.s) && sc.s[i] == '.' && isDigit(sc.s[i+1]) {
		j := i + 1
		for j < len(sc.s) && isDigit(sc.s[j]) {
			j++
		}
		frac = sc.s[i+1 : j]
		i = j
	}
	sc.pos = i
	text := intPart
	if frac != "" {
		text += "." + frac
	}
	v, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, 0, fmt.Errorf("malformed number %q", text)
	}
	if neg {
		v.Neg(v)
	}
	return v, len(frac), nil
}

// Apply checks step s against state, a multiset of current numbers, and
// returns the next state: state without the entries used for A and B (in
// their original order) followed by the exact result.
//
// A and B must be distinct entries of state. An operand written with d > 0
// decimals also matches an entry that rounds to it at d places (so "2.67"
// matches 8/3); exact matches are preferred. The result is computed exactly
// from the matched entries; s.Result must equal it, or, when written with
// d > 0 decimals, be within half a unit in the d-th place of it (8/3 = 2.67).
// Division by zero and unknown operators are errors. s.Left is not used; the
// caller may compare it with the returned state. state is not modified.
func Apply(state []*big.Rat, s Step) ([]*big.Rat, error) {
	if s.A == nil || s.B == nil || s.Result == nil {
		return nil, errors.New("incomplete step")
	}
	i := findOperand(state, s.A, s.ADecimals, -1)
	if i < 0 {
		return nil, fmt.Errorf("%s is not among the numbers [%s]", WrittenNumber(s.A, s.ADecimals), FormatState(state))
	}
	j := findOperand(state, s.B, s.BDecimals, i)
	if j < 0 {
		return nil, fmt.Errorf("%s is not among the remaining numbers [%s]", WrittenNumber(s.B, s.BDecimals), FormatState(without(state, i, -1)))
	}
	exact, err := Arith(s.Op, state[i], state[j])
	if err != nil {
		return nil, err
	}
	if !matchesWritten(s.Result, s.ResultDecimals, exact) {
		return nil, fmt.Errorf("wrong arithmetic: %s %c %s = %s, not %s",
			FormatNumber(state[i]), s.Op, FormatNumber(state[j]), FormatNumber(exact), WrittenNumber(s.Result, s.ResultDecimals))
	}
	return append(without(state, i, j), exact), nil
}

// WrittenNumber formats r as written: with its decimals, else as FormatNumber.
func WrittenNumber(r *big.Rat, decimals int) string {
	if decimals > 0 && decimals <= MaxStepLen {
		return r.FloatString(decimals)
	}
	return FormatNumber(r)
}

// findOperand returns the index of the entry of state (other than skip)
// equal to x, or else, if decimals > 0, the first that rounds to x; -1 if
// none.
func findOperand(state []*big.Rat, x *big.Rat, decimals, skip int) int {
	for k, v := range state {
		if k != skip && v != nil && v.Cmp(x) == 0 {
			return k
		}
	}
	if decimals > 0 {
		for k, v := range state {
			if k != skip && v != nil && matchesWritten(x, decimals, v) {
				return k
			}
		}
	}
	return -1
}

// matchesWritten reports whether written equals exact, or, for decimals > 0,
// |written - exact| <= 1/2 * 10^-decimals.
func matchesWritten(written *big.Rat, decimals int, exact *big.Rat) bool {
	if written.Cmp(exact) == 0 {
		return true
	}
	if decimals <= 0 {
		return false
	}
	decimals = min(decimals, MaxStepLen) // only ParseStep's bounded counts are meaningful
	diff := new(big.Rat).Sub(written, exact)
	diff.Abs(diff)
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	tol := new(big.Rat).SetFrac(big.NewInt(1), ten.Mul(ten, big.NewInt(2)))
	return diff.Cmp(tol) <= 0
}

// without returns copies of the non-nil entries of state except indices i and j.
func without(state []*big.Rat, i, j int) []*big.Rat {
	out := make([]*big.Rat, 0, len(state))
	for k, v := range state {
		if k != i && k != j && v != nil {
			out = append(out, new(big.Rat).Set(v))
		}
	}
	return out
}
