package game24

import (
	"strings"
	"unicode"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// The ToT reference implementation's prompt wrappers and value reading, for
// tot's protocol=reference. They differ from the harness's (thoughts.go) on
// purpose, in exactly the places the reference does things its own way:
// the final-step prompt has no newline after "Steps:", the value_last answer
// is the whole lower-cased last line with every "answer: " removed, a
// judgement counts only if an answer's last line is exactly the word, and
// the value is summed name by name in the order impossible, likely, sure.

// pyStrip is Python's str.strip(): Unicode whitespace plus the separators
// \x1c-\x1f, which Python also counts as space.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// pyLastLine is y.strip().split('\n')[-1].
func pyLastLine(y string) string {
	s := pyStrip(y)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// referenceNumbers is the reference's get_current_numbers: the text after
// the last "left: " of the last line, up to the first ')'.
func referenceNumbers(y string) string {
	last := pyLastLine(y)
	if i := strings.LastIndex(last, "left: "); i >= 0 {
		last = last[i+len("left: "):]
	}
	before, _, _ := strings.Cut(last, ")")
	return before
}

// ReferenceProposePrompt lists next steps from the numbers left; once they
// are exactly "24" it is the CoT prompt for the puzzle followed by "Steps:"
// and the steps so far, with no newline between.
func (*Task) ReferenceProposePrompt(lib *prompts.Library, inst tasks.Instance, y string) (string, error) {
	src := y
	if src == "" {
		src = inst.Input
	}
	if cur := referenceNumbers(src); cur != "24" {
		return lib.Render("game24/propose", struct{ Input string }{cur})
	}
	cot, err := lib.Render("game24/cot", struct{ Input string }{inst.Input})
	if err != nil {
		return "", err
	}
	return cot + "Steps:" + y, nil
}

// ReferenceValuePrompt judges the numbers left, or, when the last line has
// no "left: ", that line as the answer (lower-cased, "answer: " removed).
func (*Task) ReferenceValuePrompt(lib *prompts.Library, inst tasks.Instance, y string) (string, error) {
	last := pyLastLine(y)
	if !strings.Contains(last, "left: ") {
		ans := strings.ReplaceAll(strings.ToLower(last), "answer: ", "")
		return lib.Render("game24/value_last", struct{ Input, Answer string }{inst.Input, ans})
	}
	return lib.Render("game24/value", struct{ Input string }{referenceNumbers(y)})
}

// referenceValueMap is the reference's value map in its iteration order.
var referenceValueMap = []struct {
	name  string
	value float64
}{{"impossible", 0.001}, {"likely", 1}, {"sure", 20}}

// ReferenceValue is 0 for four lines with no "answer" (the model was asked
// anyway); otherwise the sum over impossible, likely, sure of value times
// the number of answers whose last line is exactly that word.
func (*Task) ReferenceValue(_ tasks.Instance, y string, outputs []string) float64 {
	if strings.Count(pyStrip(y), "\n") == 3 && !strings.Contains(strings.ToLower(y), "answer") {
		return 0
	}
	total := 0.0
	for _, m := range referenceValueMap {
		n := 0
		for _, o := range outputs {
			if o[strings.LastIndexByte(o, '\n')+1:] == m.name {
				n++
			}
		}
		// The explicit conversions forbid fused multiply-add, so the sum
		// rounds after each operation as Python's does.
		total = float64(total + float64(m.value*float64(n)))
	}
	return total
}

var _ tasks.ReferenceThoughts = (*Task)(nil)
