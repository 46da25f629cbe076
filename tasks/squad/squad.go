// Package squad is the answer normalisation, exact match and token F1 of the
// SQuAD and HotpotQA official evaluation scripts (hotpot_evaluate_v1.py), shared
// by the scorers and by the simulated model's reading.
package squad

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

func isASCIIPunct(r rune) bool {
	return r < utf8.RuneSelf && strings.IndexByte(asciiPunct, byte(r)) >= 0
}

// isWordRune reports whether r is a word character for Python 3's re module on
// str patterns (\w): str.isalnum() or underscore. isalnum is isalpha (Unicode
// category L*) or isdecimal/isdigit/isnumeric (category N*).
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// Normalize is the SQuAD / hotpot_evaluate_v1.py normalize_answer, applied in the
// official order:
//
//  1. lower case (strings.ToLower; Python's str.lower differs only in rare cases
//     such as final sigma and U+0130);
//  2. remove punctuation: exactly the 32 ASCII characters of Python's
//     string.punctuation. Unicode punctuation (curly quotes, en/em dashes, «»,
//     "…", CJK punctuation, ...) is KEPT, as in the official code, so that scores
//     stay comparable with published numbers; e.g. "1947–91" stays "1947–91"
//     while "1947-91" becomes "194791";
//  3. remove the articles a, an, the as whole words (re.sub(r'\b(a|an|the)\b', ' ')
//     with Python's Unicode-aware \b: word characters are letters, numbers and
//     underscore, so "thé" or "aß" are not articles but "the–" loses "the");
//  4. collapse whitespace (as Python's str.split(): strings.Fields plus the
//     separators U+001C..U+001F; tokens joined by single spaces).
//
// Invalid UTF-8 bytes are first replaced by U+FFFD (Python strings cannot hold
// them). Normalize is idempotent.
func Normalize(s string) string {
	if isASCII(s) {
		return normalizeASCII(s)
	}
	return normalizeText(s)
}

// normalizeText is Normalize step by step, for any text.
func normalizeText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		if isASCIIPunct(r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(strings.FieldsFunc(s, isPySpace), " ")
}

// normalizeASCII is normalizeText for ASCII text in one pass: the
// simulated readers normalise every sentence they read, and the four
// passes were a fifth of their time. Lowercasing and dropping
// punctuation ('_' among it) leave [a-z0-9] as the word characters;
// every other byte that is not a space (a control byte) stays, as in
// normalizeText.
func normalizeASCII(s string) string {
	out := make([]byte, 0, len(s))
	sep := false // a space or an article since the last byte kept
	word := make([]byte, 0, 16)
	flush := func() {
		switch string(word) { // compared without a copy
		case "":
		case "a", "an", "the":
			sep = true
		default:
			if sep && len(out) > 0 {
				out = append(out, ' ')
			}
			out, sep = append(out, word...), false
		}
		word = word[:0]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case isASCIIPunct(rune(c)):
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			word = append(word, c)
		case isPySpace(rune(c)):
			flush()
			sep = true
		default:
			flush()
			if sep && len(out) > 0 {
				out = append(out, ' ')
			}
			out, sep = append(out, c), false
		}
	}
	flush()
	return string(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isPySpace reports whether Python's str.isspace() is true for r: Go's
// unicode.IsSpace plus the ASCII separators U+001C..U+001F, which Python's
// str.split() also splits on.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (0x1c <= r && r <= 0x1f)
}

// removeArticles replaces every maximal run of word characters equal to "a",
// "an" or "the" by a space; this is what \b(a|an|the)\b matches.
func removeArticles(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			b.WriteString(s[i : i+w])
			i += w
			continue
		}
		j := i + w
		for j < len(s) {
			r2, w2 := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r2) {
				break
			}
			j += w2
		}
		switch word := s[i:j]; word {
		case "a", "an", "the":
			b.WriteByte(' ')
		default:
			b.WriteString(word)
		}
		i = j
	}
	return b.String()
}

// ExactMatch reports whether pred and gold are equal after Normalize
// (hotpot_evaluate_v1.py exact_match_score). Two answers that both normalise to
// "" match.
func ExactMatch(pred, gold string) bool {
	return Normalize(pred) == Normalize(gold)
}

// F1 is hotpot_evaluate_v1.py f1_score: token-level F1, precision and recall
// over the normalised, whitespace-split answers with multiset overlap.
//
// If either normalised answer is "yes", "no" or "noanswer" and the two differ,
// the result is (0, 0, 0). If there is no common token (including when either
// answer normalises to ""), the result is (0, 0, 0); note that F1("", "") is
// therefore 0 even though ExactMatch("", "") is true, as in the official code.
func F1(pred, gold string) (f1, precision, recall float64) {
	np, ng := Normalize(pred), Normalize(gold)
	special := func(s string) bool { return s == "yes" || s == "no" || s == "noanswer" }
	if (special(np) || special(ng)) && np != ng {
		return 0, 0, 0
	}
	pt, gt := strings.Split(np, " "), strings.Split(ng, " ")
	if np == "" {
		pt = nil
	}
	if ng == "" {
		gt = nil
	}
	counts := make(map[string]int, len(gt))
	for _, t := range gt {
		counts[t]++
	}
	same := 0
	for _, t := range pt {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0, 0, 0
	}
	precision = float64(same) / float64(len(pt))
	recall = float64(same) / float64(len(gt))
	f1 = 2 * precision * recall / (precision + recall)
	return f1, precision, recall
}
