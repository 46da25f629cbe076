package mathans

import (
	"errors"
	"regexp"
	"strings"
)

// Hendrycks is the original MATH rule (hendrycks/math,
// modeling/math_equivalence.py, is_equiv): both answers rewritten by its
// string normalisation and compared as strings. Where the Python code
// raises (a \frac or \sqrt with nothing after it, two "\text{ " units), it
// compares the raw strings, and so does this.
func Hendrycks(a, b string) bool {
	sa, errA := hendrycksStrip(a)
	sb, errB := hendrycksStrip(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return sa == sb
}

// HendrycksKey is the rule's normalised answer, for votes; the answer
// itself where the rule raises.
func HendrycksKey(a string) string {
	s, err := hendrycksStrip(a)
	if err != nil {
		return a
	}
	return s
}

var errRaise = errors.New("the reference raises")

func hendrycksStrip(s string) (string, error) {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, "\\!", "")
	s = strings.ReplaceAll(s, "\\\\", "\\")
	s = strings.ReplaceAll(s, "tfrac", "frac")
	s = strings.ReplaceAll(s, "dfrac", "frac")
	s = strings.ReplaceAll(s, "\\left", "")
	s = strings.ReplaceAll(s, "\\right", "")
	s = strings.ReplaceAll(s, "^{\\circ}", "")
	s = strings.ReplaceAll(s, "^\\circ", "")
	s = strings.ReplaceAll(s, "\\$", "")
	// Units on the right: everything from "\text{ " on, which must occur
	// at most once.
	if strings.Contains(s, "\\text{ ") {
		parts := strings.Split(s, "\\text{ ")
		if len(parts) != 2 {
			return "", errRaise
		}
		s = parts[0]
	}
	s = strings.ReplaceAll(s, "\\%", "")
	s = strings.ReplaceAll(s, "%", "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if s == "" {
		return s, nil
	}
	if s[0] == '.' {
		s = "0" + s
	}
	// A short "k = " prefix goes when there is exactly one "=".
	if parts := strings.Split(s, "="); len(parts) == 2 && len([]rune(parts[0])) <= 2 {
		s = parts[1]
	}
	var err error
	if s, err = hendrycksSqrt(s); err != nil {
		return "", err
	}
	s = strings.ReplaceAll(s, " ", "")
	if s, err = hendrycksFracs(s); err != nil {
		return "", err
	}
	if s == "0.5" {
		s = "\\frac{1}{2}"
	}
	return hendrycksSlash(s), nil
}

// hendrycksSqrt braces a one-character radicand: \sqrt3 → \sqrt{3}.
func hendrycksSqrt(s string) (string, error) {
	if !strings.Contains(s, "\\sqrt") {
		return s, nil
	}
	parts := strings.Split(s, "\\sqrt")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		if p == "" {
			return "", errRaise
		}
		if p[0] != '{' {
			r := []rune(p)
			b.WriteString("\\sqrt{" + string(r[0]) + "}" + string(r[1:]))
		} else {
			b.WriteString("\\sqrt" + p)
		}
	}
	return b.String(), nil
}

// hendrycksFracs braces one-character arguments: \frac12 → \frac{1}{2},
// \frac1{72} → \frac{1}{72}.
func hendrycksFracs(s string) (string, error) {
	parts := strings.Split(s, "\\frac")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		b.WriteString("\\frac")
		r := []rune(p)
		if len(r) == 0 {
			return "", errRaise
		}
		if r[0] == '{' {
			b.WriteString(p)
			continue
		}
		if len(r) < 2 {
			return s, nil // the reference gives up on the whole string
		}
		if r[1] != '{' {
			b.WriteString("{" + string(r[0]) + "}{" + string(r[1]) + "}" + string(r[2:]))
		} else {
			b.WriteString("{" + string(r[0]) + "}" + string(r[1:]))
		}
	}
	return b.String(), nil
}

var canonicalInt = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)

// hendrycksSlash turns a/b of two integers written canonically into
// \frac{a}{b}.
func hendrycksSlash(s string) string {
	parts := strings.Split(s, "/")
	if len(parts) != 2 || !canonicalInt.MatchString(parts[0]) || !canonicalInt.MatchString(parts[1]) {
		return s
	}
	return "\\frac{" + parts[0] + "}{" + parts[1] + "}"
}

// HendrycksExtract is the original MATH answer extraction
// (last_boxed_only_string, then remove_boxed): from the last "\boxed" (or,
// when there is none, the last "\fbox"), every brace counted, escaped or
// not, to the brace closing the first one; the answer is what lies inside
// "\boxed{...}". An unclosed box, an \fbox, or "\boxed 5" give no answer,
// as there.
func HendrycksExtract(output string) (string, bool) {
	if len(output) > maxOutput {
		output = output[len(output)-maxOutput:]
	}
	i := strings.LastIndex(output, "\\boxed")
	if i < 0 {
		i = strings.LastIndex(output, "\\fbox")
		if i < 0 {
			return "", false
		}
	}
	depth := 0
	for j := i; j < len(output); j++ {
		switch output[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				box := output[i : j+1]
				inner, ok := strings.CutPrefix(box, "\\boxed{")
				if !ok {
					return "", false
				}
				return inner[:len(inner)-1], true
			}
		}
	}
	return "", false
}
