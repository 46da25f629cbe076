package tau

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// What the agent and the user read in text.
var (
	userIDRE   = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)*_\d{3,5}\b`)
	emailRE    = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[a-z]{2,}\b`)
	orderIDRE  = regexp.MustCompile(`#?\b[Ww]\d{7}\b`)
	resIDRE    = regexp.MustCompile(`\b[A-Z0-9]{6}\b`)
	flightRE   = regexp.MustCompile(`\bHAT\d{3}\b`)
	zipRE      = regexp.MustCompile(`\b\d{5}\b`)
	isoDateRE  = regexp.MustCompile(`\b(20\d\d)-(\d\d)-(\d\d)\b`)
	monthDayRE = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?\b`)
	numberRE   = regexp.MustCompile(`\$?\b\d+(?:\.\d+)?\b`)
	itemIDRE   = regexp.MustCompile(`\b\d{10}\b`)
)

// reservationIDs are the six-character ids of capitals and digits in text
// (at least one letter; not a flight number).
func reservationIDs(text string) []string {
	var out []string
	for _, m := range resIDRE.FindAllString(text, -1) {
		if flightRE.MatchString(m) || strings.IndexFunc(m, unicode.IsLetter) < 0 {
			continue
		}
		out = appendNew(out, m)
	}
	return out
}

// orderIDs are the order ids in text, with their '#'.
func orderIDs(text string) []string {
	var out []string
	for _, m := range orderIDRE.FindAllString(text, -1) {
		out = appendNew(out, "#W"+m[len(m)-7:])
	}
	return out
}

func appendNew(s []string, v ...string) []string {
	for _, x := range v {
		if !slices.Contains(s, x) {
			s = append(s, x)
		}
	}
	return s
}

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// dates are the dates in text as YYYY-MM-DD (a month and day in the
// policy's year).
func dates(text, year string) []string {
	type at struct {
		pos  int
		date string
	}
	var found []at
	for _, m := range isoDateRE.FindAllStringSubmatchIndex(text, -1) {
		found = append(found, at{m[0], text[m[0]:m[1]]})
	}
	for _, m := range monthDayRE.FindAllStringSubmatchIndex(text, -1) {
		mon := months[strings.ToLower(text[m[2]:m[3]])[:3]]
		day, _ := strconv.Atoi(text[m[4]:m[5]])
		if day < 1 || day > 31 {
			continue
		}
		found = append(found, at{m[0], year + "-" + pad2(mon) + "-" + pad2(day)})
	}
	slices.SortFunc(found, func(a, b at) int { return a.pos - b.pos })
	var out []string
	for _, f := range found {
		out = appendNew(out, f.date)
	}
	return out
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// addDays moves a YYYY-MM-DD date by n days (within the calendar).
func addDays(date string, n int) string {
	y, m, d := 0, 0, 0
	if len(date) != 10 {
		return date
	}
	y, _ = strconv.Atoi(date[:4])
	m, _ = strconv.Atoi(date[5:7])
	d, _ = strconv.Atoi(date[8:10])
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days[1] = 29
	}
	if m < 1 || m > 12 {
		return date
	}
	d += n
	for d > days[m-1] {
		d -= days[m-1]
		m++
		if m > 12 {
			m, y = 1, y+1
		}
	}
	for d < 1 {
		m--
		if m < 1 {
			m, y = 12, y-1
		}
		d += days[m-1]
	}
	return strconv.Itoa(y) + "-" + pad2(m) + "-" + pad2(d)
}

// words are text's lower-case words (letters and digits), a plural s
// dropped from words of four letters or more.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		out = append(out, stem(w))
	}
	return out
}

func stem(w string) string {
	if len(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// wordSet is the set of text's words.
func wordSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(text) {
		out[w] = true
	}
	return out
}

// hasAny reports whether lower-cased text contains any of the phrases.
func hasAny(text string, phrases ...string) bool {
	text = strings.ToLower(text)
	for _, p := range phrases {
		if strings.Contains(text, p) {
			return true
		}
	}
	return false
}

// hasWord reports whether text has any of the words (whole words, after
// stemming).
func hasWord(text string, ws ...string) bool {
	set := wordSet(text)
	for _, w := range ws {
		if set[stem(w)] {
			return true
		}
	}
	return false
}

var numberWords = map[string]int{"zero": 0, "no": 0, "one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

// countBefore is the count written just before one of the nouns in text
// ("3 checked bags", "two suitcases"), or -1.
func countBefore(text string, nouns ...string) int {
	ws := words(text)
	for i, w := range ws {
		if !slices.Contains(nouns, w) {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			if n, err := strconv.Atoi(ws[j]); err == nil && n >= 0 && n < 100 {
				return n
			}
			if n, ok := numberWords[ws[j]]; ok {
				return n
			}
		}
	}
	return -1
}

// JSON values as json.Unmarshal gives them.

func m(v any, key string) map[string]any {
	mm, _ := v.(map[string]any)
	out, _ := mm[key].(map[string]any)
	return out
}

func s(v any, key string) string {
	mm, _ := v.(map[string]any)
	out, _ := mm[key].(string)
	return out
}

func f(v any, key string) float64 {
	mm, _ := v.(map[string]any)
	out, _ := mm[key].(float64)
	return out
}

func arr(v any, key string) []any {
	mm, _ := v.(map[string]any)
	out, _ := mm[key].([]any)
	return out
}

// decode reads a tool's result as JSON (nil when it is not).
func decode(result string) any {
	var v any
	if json.Unmarshal([]byte(result), &v) != nil {
		return nil
	}
	return v
}

// sortedKeys are a map's keys in order.
func sortedKeys[V any](mm map[string]V) []string {
	out := make([]string, 0, len(mm))
	for k := range mm {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// money writes an amount as a number: whole amounts without decimals.
func money(x float64) any {
	x = math.Round(x*100) / 100
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return int64(x)
	}
	return x
}

func moneyText(x float64) string {
	switch v := money(x).(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return ""
}

// balance is a gift card's or certificate's balance (airline: amount,
// retail: balance).
func balance(p any) float64 {
	if v := f(p, "amount"); v != 0 {
		return v
	}
	return f(p, "balance")
}
