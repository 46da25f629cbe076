package game24

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

var rat24 = big.NewRat(24, 1)

// ExtractAnswer finds the last line that, after trimming whitespace, starts
// with "Answer:" (any case) and returns the text after "Answer:" and before
// the first '=', trimmed. ok is false when there is no such line.
func ExtractAnswer(output string) (expr string, ok bool) {
	line, ok := LastAnswerLine(output)
	if !ok {
		return "", false
	}
	rest := line[len(answerPrefix):]
	if j := strings.IndexByte(rest, '='); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest), true
}

const answerPrefix = "answer:"

// LastAnswerLine returns the last line that starts with "Answer:" (any
// case, after trimming), trimmed.
func LastAnswerLine(output string) (string, bool) {
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if len(l) >= len(answerPrefix) && strings.EqualFold(l[:len(answerPrefix)], answerPrefix) {
			return l, true
		}
	}
	return "", false
}

// Verdict is the result of scoring one model output.
type Verdict struct {
	Correct    bool
	Expression string // the extracted expression text ("" if none)
	Reason     string // why incorrect: "no answer line", "parse: ...", "numbers used [..] differ from puzzle [..]", "value 23 is not 24"; "" when correct
}

// Check scores a model output against the puzzle's numbers. It is correct
// iff ExtractAnswer finds an Answer line, its expression parses (ParseExpr),
// the multiset of literal values used equals the multiset of numbers (values
// are compared exactly, so "4.0" counts as 4), and the value is exactly 24.
func Check(numbers []int, output string) Verdict {
	expr, ok := ExtractAnswer(output)
	if !ok {
		return Verdict{Reason: "no answer line"}
	}
	v := Verdict{Expression: expr}
	e, err := ParseExpr(expr)
	if err != nil {
		v.Reason = "parse: " + err.Error()
		return v
	}
	if !sameMultiset(e.Leaves(), Rats(numbers)) {
		v.Reason = fmt.Sprintf("numbers used [%s] differ from puzzle [%s]",
			joinRats(e.Leaves()), joinRats(Rats(numbers)))
		return v
	}
	if val := e.Value(); val.Cmp(rat24) != 0 {
		v.Reason = fmt.Sprintf("value %s is not 24", FormatNumber(val))
		return v
	}
	v.Correct = true
	return v
}

// Rats converts integers to exact rationals.
func Rats(nums []int) []*big.Rat {
	out := make([]*big.Rat, len(nums))
	for i, n := range nums {
		out[i] = big.NewRat(int64(n), 1)
	}
	return out
}

func sameMultiset(a, b []*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = sortedRats(a), sortedRats(b)
	for i := range a {
		if a[i].Cmp(b[i]) != 0 {
			return false
		}
	}
	return true
}

// sortedRats returns a sorted copy of the slice (the Rats are shared), with
// nil entries dropped.
func sortedRats(rs []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, 0, len(rs))
	for _, r := range rs {
		if r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y *big.Rat) int { return x.Cmp(y) })
	return out
}

func joinRats(rs []*big.Rat) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = FormatNumber(r)
	}
	return strings.Join(parts, " ")
}

// FormatNumber writes an integer as "20" or "-3" and any other rational as a
// reduced fraction "8/3". nil gives "".
func FormatNumber(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.RatString()
}

// FormatState writes the numbers sorted ascending, space-separated, each as
// FormatNumber does: "6 10 20", "8/3 9". nil entries are skipped.
func FormatState(state []*big.Rat) string {
	return joinRats(sortedRats(state))
}
