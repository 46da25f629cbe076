package strategies

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clip cuts s to at most n bytes at a rune boundary and makes it valid
// UTF-8.
func clip(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// capText is clip with a marker saying how much was cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return clip(s, n) + fmt.Sprintf(" … [%d bytes cut]", len(s)-len(clip(s, n)))
}
