package pyval

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// DecodeRune decodes the first code point of a WTF-8 string: UTF-8, plus the
// three-byte forms of the surrogates U+D800..U+DFFF that a Python str can
// hold alone. A byte that starts no valid sequence decodes as U+FFFD, size 1
// (pyval never builds such strings; Go strings from elsewhere may hold them).
func DecodeRune(s string) (rune, int) {
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2]&0xC0 == 0x80 {
		return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), 3
	}
	return utf8.DecodeRuneInString(s)
}

// AppendRune appends r in WTF-8: surrogates get their three-byte form.
func AppendRune(dst []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(dst, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(dst, r)
}

// Runes returns the code points of s (len() of a Python str is their count).
func Runes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, n := DecodeRune(s[i:])
		out = append(out, r)
		i += n
	}
	return out
}

// Len is len(s) for a Python str: its number of code points.
func Len(s string) int {
	n := 0
	for i := 0; i < len(s); n++ {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, k := DecodeRune(s[i:])
		i += k
	}
	return n
}

// FromRunes builds the WTF-8 string of the code points rs.
func FromRunes(rs []rune) string {
	b := make([]byte, 0, len(rs))
	for _, r := range rs {
		b = AppendRune(b, r)
	}
	return string(b)
}

// sanitize returns s with every byte that starts no WTF-8 sequence replaced
// by U+FFFD, so that every string pyval builds decodes to code points.
func sanitize(s string) string {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			return sanitizeSlow(s)
		}
		i += n
	}
	return s
}

func sanitizeSlow(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := DecodeRune(s[i:])
		b = AppendRune(b, r)
		i += n
	}
	return string(b)
}

func inRanges(r rune, table [][2]rune) bool {
	i := sort.Search(len(table), func(i int) bool { return table[i][1] >= r })
	return i < len(table) && table[i][0] <= r
}

// IsPrintable is str.isprintable() of the one-character string r, by
// CPython 3.11's tables.
func IsPrintable(r rune) bool {
	if r >= 0x20 && r < 0x7F {
		return true
	}
	return !inRanges(r, nonPrintable)
}

// IsSpace is str.isspace() of the one-character string r.
func IsSpace(r rune) bool { return inRanges(r, spaces) }

// DecimalValue returns the digit value int() gives the code point r, and
// whether r is a decimal digit at all (any script's, as CPython accepts).
func DecimalValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	i := sort.Search(len(decimals), func(i int) bool { return decimals[i][1] >= r })
	if i < len(decimals) && decimals[i][0] <= r {
		return int(r-decimals[i][0]) % 10, true
	}
	return 0, false
}

// Lower is str.lower(): the full lowercase mapping of CPython 3.11 (U+0130
// becomes two code points), with capital sigma turned final (U+03C2) where
// Unicode's Final_Sigma context holds, as CPython does.
func Lower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	rs := Runes(s)
	b := make([]byte, 0, len(s))
	for i, r := range rs {
		switch {
		case r == 0x03A3:
			b = AppendRune(b, lowerSigma(rs, i))
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
		default:
			if lo, ok := lowerSpecial[r]; ok {
				b = append(b, lo...)
			} else {
				b = AppendRune(b, r)
			}
		}
	}
	return string(b)
}

// lowerSigma applies Final_Sigma to the capital sigma at rs[i]: final when
// a cased letter precedes it (case-ignorables skipped) and none follows.
func lowerSigma(rs []rune, i int) rune {
	j := i - 1
	for j >= 0 && inRanges(rs[j], caseIgnorable) {
		j--
	}
	final := j >= 0 && inRanges(rs[j], cased)
	if final && i+1 < len(rs) {
		j = i + 1
		for j < len(rs) && inRanges(rs[j], caseIgnorable) {
			j++
		}
		final = j == len(rs) || !inRanges(rs[j], cased)
	}
	if final {
		return 0x03C2
	}
	return 0x03C3
}

const hexDigits = "0123456789abcdef"

// AppendStrRepr appends repr(s): single quotes unless s holds a ' and no ",
// backslash escapes for the quote, \\, \t, \n, \r, \xNN for the other
// control characters and for non-printable code points below 256, \uNNNN
// and \UNNNNNNNN above; printable code points as they are.
func AppendStrRepr(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == quote || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < 0x20 || c == 0x7F:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			default:
				dst = append(dst, c)
			}
			continue
		}
		r, n := DecodeRune(s[i:])
		switch {
		case IsPrintable(r):
			dst = append(dst, s[i:i+n]...)
		case r < 0x100:
			dst = append(dst, '\\', 'x', hexDigits[r>>4], hexDigits[r&15])
		case r < 0x10000:
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
		default:
			dst = append(dst, '\\', 'U')
			for shift := 28; shift >= 0; shift -= 4 {
				dst = append(dst, hexDigits[r>>uint(shift)&15])
			}
		}
		i += n
	}
	return append(dst, quote)
}
