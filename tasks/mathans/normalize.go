package mathans

import (
	"regexp"
	"strings"
)

// Normalize rewrites an answer into the form the full rule compares:
// spacing commands, \left/\right, \dfrac/\tfrac, degrees, dollars, \text{}
// wrappers and unit words dropped, a.m./p.m. folded, thousands separators of
// a lone number removed, a trailing period dropped. Variables' case is kept.
func Normalize(a string) string {
	if len(a) > maxNormalize {
		a = a[:maxNormalize] // bounded work; Equal and Key compare such answers whole
	}
	a = strings.ToValidUTF8(a, "\uFFFD")
	a = stripDelims(strings.TrimSpace(a))
	a = escaped.ReplaceAllString(a, `\$1`)   // \\frac from doubly escaped text is \frac; a row break \\ is kept
	a = thinComma.ReplaceAllString(a, ",$1") // 11,\! 111: MATH's thousands separator, spaced or not
	a = strings.NewReplacer(
		"\\\\", "\\\\", // a matrix row break, kept whole before "\\ " is read
		"\n", " ", "\r", " ", "\t", " ",
		"\\!", "", "\\,", " ", "\\;", " ", "\\:", " ", "\\ ", " ", "~", " ", "\\quad", " ", "\\qquad", " ",
		"\\dfrac", "\\frac", "\\tfrac", "\\frac", "\\cfrac", "\\frac", "\\dbinom", "\\binom", "\\tbinom", "\\binom",
		"\\displaystyle", "", "^{\\circ}", "", "^\\circ", "", "°", "", "\\degree", "", "{,}", ",",
		"\\$", "", "$", "", "\\%", "%", "\\varnothing", "\\emptyset", "\\infin ", "\\infty ",
		"\\le ", "\\leq ", "\\ge ", "\\geq ", "\\neq", "\\ne ",
	).Replace(a)
	a = dropLeftRight(a)
	a = dropUnitText(a)
	a = unwrapText(a)
	a = strings.ReplaceAll(a, "\\{\\}", "\\emptyset")
	a = subscript.ReplaceAllString(a, "_$1")
	a = ampm.ReplaceAllString(a, "${1}m")
	a = strings.Join(strings.Fields(a), " ")
	a = dropUnitWords(a)
	a = percentWord.ReplaceAllString(a, "%")
	a = andOr.ReplaceAllString(a, ", ")
	a = inPrefix.ReplaceAllString(a, "")
	// Thousands separators have no space: "32, 349" is a list of two.
	if m := thousands.FindStringSubmatch(spacedEq.ReplaceAllString(a, "=")); m != nil {
		a = m[1] + strings.ReplaceAll(m[2], ",", "") + m[3] // x = 10,080% keeps its prefix and sign
	}
	if m := optionLetter.FindStringSubmatch(a); m != nil {
		a = m[1]
	}
	a = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(a), ".,;"))
	return a
}

// maxNormalize is the longest answer normalised.
const maxNormalize = 4 * maxAnswerBytes

var (
	ampm         = regexp.MustCompile(`(?i)\s*\b([ap])\.\s*m\.?`)
	percentWord  = regexp.MustCompile(`\s*\b(percent|pct)\b`)
	spacedEq     = regexp.MustCompile(`\s*=\s*`)
	thinComma    = regexp.MustCompile(`,\\!\s*(\d{3})`)
	andOr        = regexp.MustCompile(`\s*,?\s+\b(and|or)\b\s+`)
	inPrefix     = regexp.MustCompile(`^[a-zA-Z]\s*\\in\s*`)
	thousands    = regexp.MustCompile(`^([a-zA-Z]=)?([+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?)\s*(%?)$`)
	optionLetter = regexp.MustCompile(`^\(([A-Z])\)$`)
	escaped      = regexp.MustCompile(`\\\\([a-zA-Z{}$%])`)
	varPrefix    = regexp.MustCompile(`^[a-zA-Z]\s*=\s*`)
	subscript    = regexp.MustCompile(`_\{([0-9A-Za-z]+)\}`) // 4210_{5} is 4210_5
)

// dropLeftRight removes \left and \right (with the invisible delimiter
// "." they may take).
func dropLeftRight(a string) string {
	var b strings.Builder
	for i := 0; i < len(a); {
		for _, cmd := range []string{"\\left", "\\right"} {
			if strings.HasPrefix(a[i:], cmd) && (i+len(cmd) == len(a) || !isLetter(a[i+len(cmd)])) {
				i += len(cmd)
				if i < len(a) && a[i] == '.' {
					i++
				}
				goto next
			}
		}
		b.WriteByte(a[i])
		i++
	next:
	}
	return b.String()
}

var textCmds = []string{"\\text", "\\textbf", "\\textit", "\\textrm", "\\textnormal", "\\mathrm", "\\mathbf", "\\mathit", "\\mbox", "\\operatorname", "\\mathnormal"}

// braceGroup returns the content of the group starting at s[0] == '{' and
// the index after it, or ok=false.
func braceGroup(s string) (string, int, bool) {
	if s == "" || s[0] != '{' {
		return "", 0, false
	}
	depth := 0
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:j], j + 1, true
			}
		}
	}
	return "", 0, false
}

// unwrapText replaces \text{X} (and its kin) by X.
func unwrapText(a string) string {
	for range 32 {
		changed := false
		for _, cmd := range textCmds {
			i := strings.Index(a, cmd+"{")
			for i >= 0 && i+len(cmd) < len(a) && i > 0 && isLetter(a[i-1]) {
				i = -1
			}
			if i < 0 {
				continue
			}
			inner, n, ok := braceGroup(a[i+len(cmd):])
			if !ok {
				continue
			}
			a = a[:i] + " " + inner + " " + a[i+len(cmd)+n:]
			changed = true
		}
		if !changed {
			break
		}
	}
	return strings.TrimSpace(a)
}

// units are words dropped after a quantity: "5 \text{ cm}^2", "12 square
// units", "3 dollars". Single letters are not among them (m, g could be
// variables).
var units = map[string]bool{}

func init() {
	for _, u := range strings.Fields(`cm mm km meter metre centimeter millimeter kilometer inch inches ft foot feet
		yard yd mile unit square sq cubic degree radian dollar cent hour hr minute min second sec day week month year
		mph kph pound lb ounce oz gram kg liter litre ml gallon quart pint people person student way time point
		child children adult box ball marble coin book page mile cup egg apple cookie tree dog cat car edge face
		vertex vertices handshake game`) {
		units[u] = true
	}
}

func isUnit(w string) bool {
	w = strings.ToLower(strings.Trim(w, ".,;"))
	w = strings.TrimSuffix(strings.TrimSuffix(w, "^2"), "^3")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "^{2}"), "^{3}")
	if units[w] {
		return true
	}
	return len(w) > 2 && strings.HasSuffix(w, "s") && units[w[:len(w)-1]]
}

// dropUnitText drops a final \text{...} (or \mbox) whose words are all
// units, after something else: "5\text{ cm}", "10 \text{square units}".
func dropUnitText(a string) string {
	for range 4 {
		t := strings.TrimSpace(a)
		t = strings.TrimSuffix(strings.TrimSuffix(t, "^2"), "^3")
		done := true
		for _, cmd := range []string{"\\text", "\\mbox", "\\mathrm", "\\textrm"} {
			i := strings.LastIndex(t, cmd+"{")
			if i <= 0 {
				continue
			}
			inner, n, ok := braceGroup(t[i+len(cmd):])
			if !ok || i+len(cmd)+n != len(t) || !allUnits(inner) {
				continue
			}
			a, done = t[:i], false
			break
		}
		if done {
			break
		}
	}
	return a
}

func allUnits(s string) bool {
	ws := strings.Fields(s)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !isUnit(w) {
			return false
		}
	}
	return true
}

// dropUnitWords drops final unit words after a quantity: "12 square
// units" → "12".
func dropUnitWords(a string) string {
	ws := strings.Fields(a)
	k := len(ws)
	for k > 1 && isUnit(ws[k-1]) {
		k--
	}
	if k == len(ws) || k == 0 {
		return a
	}
	last := ws[k-1]
	if c := last[len(last)-1]; !(c >= '0' && c <= '9' || c == '}' || c == ')' || c == '%') {
		return a // "the number of ways" is not a quantity with a unit
	}
	return strings.Join(ws[:k], " ")
}

// textKey is the string form two answers fall back on: normalised, spaces
// removed. Case is kept (X is not x); words compare case-folded only when
// an answer does not parse (foldedKey).
func textKey(a string) string {
	return strings.ReplaceAll(Normalize(a), " ", "")
}

func foldedKey(a string) string {
	k := textKey(a)
	if rest := varPrefix.ReplaceAllString(k, ""); rest != "" && !strings.Contains(rest, "=") {
		k = rest // "x = \text{Evelyn}" is "Evelyn"
	}
	return strings.ToLower(k)
}
