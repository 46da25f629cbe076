package mathans

import (
	"strings"
)

// maxOutput bounds the text an answer is looked for in: the end of an
// enormous output.
const maxOutput = 64 << 10

// Extract returns the answer of a solution: the content of its last
// complete \boxed{...} or \fbox{...} (braces nest; \boxed 5 takes the next
// word), else what follows its last "the answer is". ok is false when the
// output gives neither.
func Extract(output string) (string, bool) {
	if len(output) > maxOutput {
		output = output[len(output)-maxOutput:]
	}
	if a, ok := lastBoxed(output); ok {
		return a, true
	}
	return answerIs(output)
}

// maxBoxTries bounds the boxes looked at from the end: each look scans to
// its closing brace, and an output of thousands of unclosed boxes would
// otherwise cost their square.
const maxBoxTries = 16

// lastBoxed finds the last \boxed or \fbox with a complete argument.
func lastBoxed(s string) (string, bool) {
	end := len(s)
	for try := 0; end > 0 && try < maxBoxTries; try++ {
		i := max(strings.LastIndex(s[:end], "\\boxed"), strings.LastIndex(s[:end], "\\fbox"))
		if i < 0 {
			return "", false
		}
		cmd := "\\boxed"
		if strings.HasPrefix(s[i:], "\\fbox") {
			cmd = "\\fbox"
		}
		if a, ok := boxedArg(s[i+len(cmd):]); ok {
			return a, true
		}
		end = i
	}
	return "", false
}

// boxedArg reads the argument after \boxed: a brace group (unescaped
// braces counted), or after a space the next word (\boxed 5).
func boxedArg(rest string) (string, bool) {
	if strings.HasPrefix(rest, "{") {
		depth := 0
		for j := 0; j < len(rest); j++ {
			switch rest[j] {
			case '\\':
				j++ // \{ and \} are characters, not groups
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					a := strings.TrimSpace(rest[1:j])
					return a, a != ""
				}
			}
		}
		return "", false // truncated: no closing brace
	}
	if rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return "", false // \boxedfoo is another command
	}
	w := strings.TrimLeft(rest, " \t")
	if k := strings.IndexAny(w, " \t\n$"); k >= 0 {
		w = w[:k]
	}
	w = strings.TrimRight(w, ".,;")
	return w, w != ""
}

// answerIs reads the last "the answer is ..." sentence's answer: to the end
// of the line, math delimiters and a final period dropped.
func answerIs(s string) (string, bool) {
	lower := strings.ToLower(s)
	i := strings.LastIndex(lower, "answer is")
	if i < 0 {
		return "", false
	}
	a, _, _ := strings.Cut(s[i+len("answer is"):], "\n")
	a = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a), ":"))
	a = strings.TrimSpace(a)
	a = strings.TrimRight(a, " .")
	a = stripDelims(a)
	if len(a) > maxAnswerBytes {
		return "", false
	}
	return a, a != ""
}

// stripDelims drops math delimiters around an answer: $...$, \(...\),
// \[...\].
func stripDelims(a string) string {
	for {
		b := strings.TrimSpace(a)
		switch {
		case len(b) >= 2 && strings.HasPrefix(b, "$") && strings.HasSuffix(b, "$"):
			b = strings.Trim(b, "$")
		case strings.HasPrefix(b, "\\(") && strings.HasSuffix(b, "\\)"):
			b = b[2 : len(b)-2]
		case strings.HasPrefix(b, "\\[") && strings.HasSuffix(b, "\\]"):
			b = b[2 : len(b)-2]
		}
		b = strings.TrimSpace(b)
		if b == a {
			return b
		}
		a = b
	}
}
