package crosswords

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyStrip is Python's str.strip(): Unicode whitespace and the separators
// U+001C-U+001F.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// GridActions reads an io/cot answer as the reference's test_output does:
// the text after the last "Output:\n", stripped, its last 5 lines; row i is
// the first 5 space-separated tokens of line i joined, padded with blanks
// to 5, written as "h{i}. WORD" (a row longer than 5 letters is an invalid
// action, which only counts as a step).
func GridActions(output string) []string {
	if i := strings.LastIndex(output, "Output:\n"); i >= 0 {
		output = output[i+len("Output:\n"):]
	}
	lines := strings.Split(pyStrip(output), "\n")
	if len(lines) > Size {
		lines = lines[len(lines)-Size:]
	}
	actions := make([]string, len(lines))
	for i, line := range lines {
		letters := strings.Split(line, " ")
		if len(letters) > Size {
			letters = letters[:Size]
		}
		word := strings.Join(letters, "")
		if n := utf8.RuneCountInString(word); n < Size {
			word += strings.Repeat(string(Blank), Size-n)
		}
		actions[i] = "h" + string(rune('1'+i)) + ". " + word
	}
	return actions
}

// stateLine is one action line of a ToT state.
var stateLine = regexp.MustCompile(`^[hv][0-9]+\. `)

// StateActions returns the actions of a ToT state (one "h1. word" a line)
// and true, or false when output is not one (an io/cot answer). An empty
// output is the empty state.
func StateActions(output string) ([]string, bool) {
	s := strings.TrimSpace(output)
	if s == "" {
		return nil, true
	}
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if !stateLine.MatchString(l) {
			return nil, false
		}
	}
	return lines, true
}

// BoardOf is the board an output leaves: a ToT state's actions, or an
// io/cot grid, applied to an empty board.
func BoardOf(output string) Board {
	if acts, ok := StateActions(output); ok {
		return Replay(acts)
	}
	return Replay(GridActions(output))
}
