package hotpotqa

import "strings"

// ExtractAnswer finds the final answer in a model's text.
//
// It looks for, in order of preference:
//
//  1. the last Finish action: "finish" (ASCII case-insensitive, not preceded by
//     a letter, digit or underscore), optional spaces/tabs, then "[". The answer
//     runs to the matching "]" (nested brackets are balanced, so
//     "Finish[Blic [newspaper]] see [1]" gives "Blic [newspaper]"). If the bracket
//     is not closed on that line (e.g. generation stopped before "]"), the answer
//     is the rest of the line; if the rest of the line is blank, the bracket may
//     close on a later line, else the first non-blank following line is used.
//     An argument never extends into a later Finish action.
//  2. the last line starting with "Answer:" (case-insensitive; leading
//     whitespace and Markdown decoration such as "**Answer:**", "## Answer:" or
//     "- Answer:" are tolerated). If nothing follows the colon on that line, the
//     next non-blank line is the answer.
//
// The answer is trimmed of whitespace, trailing periods and surrounding matching
// quotes (ASCII ' " `, curly ‘’ “”, «», and Markdown ** or *), repeatedly, so
// `"Paris".` and “Paris.” both give Paris. Quotes are only removed in pairs, so
// `"Now and Then" (1995)` is kept. A candidate whose answer is empty after
// trimming (e.g. "Finish[]") is ignored and the next candidate is tried; ok is
// false when no candidate gives a non-empty answer. On success the answer is a
// substring of output.
func ExtractAnswer(output string) (string, bool) {
	if ans, ok := lastFinish(output); ok {
		return ans, true
	}
	return lastAnswerLine(output)
}

// asciiLower lower-cases ASCII letters byte by byte, keeping byte offsets
// aligned with the input (strings.ToLower may change lengths).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

func isASCIIWordByte(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func lastFinish(output string) (string, bool) {
	lower := asciiLower(output)
	end := len(lower)
	limit := len(output) // start of the later Finish candidate already tried
	for end > 0 {
		i := strings.LastIndex(lower[:end], "finish")
		if i < 0 {
			return "", false
		}
		end = i // next iteration searches strictly before this occurrence
		if i > 0 && isASCIIWordByte(lower[i-1]) {
			continue
		}
		j := i + len("finish")
		for j < len(lower) && (lower[j] == ' ' || lower[j] == '\t') {
			j++
		}
		if j >= len(lower) || lower[j] != '[' {
			continue
		}
		// A skipped (empty) candidate only scans up to the next candidate, so
		// the total work stays linear in len(output).
		arg := finishArgument(output[j+1 : limit])
		limit = i
		if ans := cleanAnswer(arg); ans != "" {
			return ans, true
		}
	}
	return "", false
}

// finishArgument returns the argument of a Finish action; rest is the text
// just after the opening "[", up to the next (later) Finish candidate.
func finishArgument(rest string) string {
	depth := 1
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return rest[:i]
			}
		case '\n':
			line := rest[:i]
			if strings.TrimSpace(line) != "" {
				return line // closing bracket missing on this line
			}
			after := rest[i+1:]
			if k := matchBracket(after, depth); k >= 0 {
				return after[:k]
			}
			return firstNonBlankLine(after)
		}
	}
	return rest // closing bracket missing at the end of the text
}

// matchBracket returns the index of the "]" that brings depth open brackets
// to zero, or -1.
func matchBracket(s string, depth int) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func firstNonBlankLine(s string) string {
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) != "" {
			return line
		}
	}
	return ""
}

// markdownDecor is trimmed before the "Answer" label.
const markdownDecor = " \t*_#>-"

// answerDecor is trimmed around the text of an "Answer:" line ("**Answer:** x").
const answerDecor = " \t\r*_"

func lastAnswerLine(output string) (string, bool) {
	lines := strings.Split(output, "\n")
	next := -1 // index of the first non-blank line after i, or -1
	for i := len(lines) - 1; i >= 0; i-- {
		rest, ok := answerLabel(lines[i])
		if ok {
			rest = strings.Trim(rest, answerDecor)
			if rest == "" && next >= 0 {
				if _, isLabel := answerLabel(lines[next]); !isLabel {
					rest = strings.Trim(lines[next], answerDecor)
				}
			}
			if ans := cleanAnswer(rest); ans != "" {
				return ans, true
			}
		}
		if strings.TrimSpace(lines[i]) != "" {
			next = i
		}
	}
	return "", false
}

// answerLabel reports whether line starts with an "Answer:" label and returns
// what follows the colon.
func answerLabel(line string) (string, bool) {
	s := strings.TrimLeft(line, markdownDecor)
	const label = "answer"
	if len(s) < len(label) || asciiLower(s[:len(label)]) != label {
		return "", false
	}
	s = strings.TrimLeft(s[len(label):], " \t*_")
	if !strings.HasPrefix(s, ":") {
		return "", false
	}
	return s[1:], true
}

var quotePairs = [][2]string{
	{`"`, `"`}, {`'`, `'`}, {"`", "`"},
	{"“", "”"}, {"‘", "’"}, {"«", "»"}, {"„", "“"},
	{"**", "**"}, {"*", "*"},
}

// cleanAnswer trims whitespace, trailing periods and surrounding matching
// quotes until nothing changes.
func cleanAnswer(s string) string {
	for {
		prev := s
		s = strings.TrimSpace(s)
		s = strings.TrimRight(s, ".")
		s = strings.TrimSpace(s)
		for _, q := range quotePairs {
			if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
				s = s[len(q[0]) : len(s)-len(q[1])]
				break
			}
		}
		if s == prev {
			return s
		}
	}
}
