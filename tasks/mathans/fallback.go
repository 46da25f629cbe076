package mathans

import (
	"regexp"
	"strings"
)

// ExtractBoxed returns the content of the output's last complete \boxed{}
// or \fbox{} only: the rule math:strict, which requires the box.
func ExtractBoxed(output string) (string, bool) {
	if len(output) > maxOutput {
		output = output[len(output)-maxOutput:]
	}
	return lastBoxed(output)
}

// Fallback is the final answer of an output that boxes none and says no
// "the answer is": the last inline math ($...$ or \(...\)) that stands on
// one line, else the last number that stands as a word on its line (not
// "5th", "x2" or "3a"). A number broken over lines is two numbers, and the
// later is taken only as itself. ok is false when there is neither.
func Fallback(output string) (string, bool) {
	if len(output) > maxOutput {
		output = output[len(output)-maxOutput:]
	}
	lines := strings.Split(output, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if a, ok := lastInlineMath(lines[i]); ok {
			return a, true
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if a, found, ok := lastWordNumber(lines[i]); found {
			if !ok {
				return "", false
			}
			return a, true
		}
	}
	return "", false
}

// lastInlineMath is the last $...$ or \(...\) span of a line, $$ (display
// math) and escaped \$ excluded.
func lastInlineMath(line string) (string, bool) {
	var spans []string
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '(':
			end := strings.Index(line[i+2:], "\\)")
			if end < 0 {
				return last(spans)
			}
			spans = append(spans, line[i+2:i+2+end])
			i += 2 + end + 1
		case line[i] == '\\':
			i++ // \$ and other escapes
		case line[i] == '$':
			if i+1 < len(line) && line[i+1] == '$' {
				i++ // display math is not inline
				continue
			}
			end := unescapedDollar(line[i+1:])
			if end < 0 {
				return last(spans)
			}
			spans = append(spans, line[i+1:i+1+end])
			i += 1 + end
		}
	}
	return last(spans)
}

func unescapedDollar(s string) int {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '$':
			return j
		}
	}
	return -1
}

func last(spans []string) (string, bool) {
	for k := len(spans) - 1; k >= 0; k-- {
		if a := strings.TrimSpace(spans[k]); a != "" && len(a) <= maxAnswerBytes {
			return a, true
		}
	}
	return "", false
}

var wordNumber = regexp.MustCompile(`^-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+)?$`)

// lastWordNumber is the line's last word that has a digit, when that word
// is a number (punctuation and emphasis around it dropped); found says
// the line has such a word: "5th", "x2",
// "3,5" (a decimal comma) or "v1.2.3" are no answer, and an earlier
// number is not taken in their place.
func lastWordNumber(line string) (a string, found, ok bool) {
	words := strings.Fields(line)
	for k := len(words) - 1; k >= 0; k-- {
		w := strings.Trim(words[k], "*_()[]\"'$\\")
		w = strings.TrimRight(w, ".,;:!?")
		w = strings.Trim(w, "*_()[]\"'$\\")
		if !strings.ContainsAny(w, "0123456789") {
			continue
		}
		return w, true, len(w) <= maxAnswerBytes && wordNumber.MatchString(w)
	}
	return "", false, false
}
