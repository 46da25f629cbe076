package prompts

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file reads prompt texts out of Python source (the papers' reference
// repositories keep them as module-level string constants) without running
// any Python: a small reader of string literals and assignments.

// PyStrings returns the module-level assignments NAME = <string> of a
// Python source file, where <string> is one or more string literals
// (single, double or triple quoted; prefixes r, u, b in any case; implicit
// concatenation, optionally parenthesised or joined with +). Assignments of
// anything else are skipped, and so are assignments involving an f-string
// (its value cannot be known without Python; py_generate.py builds its
// messages with them). \N{...} escapes are refused.
func PyStrings(src string) (map[string]string, error) {
	toks, err := pyTokens(src)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	// Statements are runs of tokens between top-level newlines.
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].kind != tkNewline {
			continue
		}
		stmt := toks[start:i]
		start = i + 1
		if len(stmt) < 3 || stmt[0].kind != tkName || stmt[1].text != "=" || stmt[0].col != 0 {
			continue
		}
		if v, ok := pyConcat(stmt[2:]); ok {
			out[stmt[0].text] = v
		}
	}
	return out, nil
}

// pyConcat is the value of strings joined implicitly or with +, in optional
// parentheses.
func pyConcat(ts []pyTok) (string, bool) {
	for len(ts) >= 2 && ts[0].text == "(" && ts[len(ts)-1].text == ")" {
		ts = ts[1 : len(ts)-1]
	}
	if len(ts) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, t := range ts {
		switch {
		case t.kind == tkString:
			b.WriteString(t.text)
		case t.text == "+" && i > 0 && i < len(ts)-1:
		default:
			return "", false
		}
	}
	return b.String(), true
}

type tokKind int

const (
	tkName tokKind = iota
	tkString
	tkFString // an f-string: its text is its literal's, {fields} unevaluated (pyFString reads them)
	tkOp
	tkNewline
)

type pyTok struct {
	kind tokKind
	text string // a string's decoded value
	col  int    // column of the token's start (0: at the start of a line)
}

// pyTokens splits Python source into names, decoded strings, operators and
// the newlines that end statements (not those inside brackets, after a
// backslash, or inside strings); comments are dropped.
func pyTokens(src string) ([]pyTok, error) {
	var toks []pyTok
	depth, line, col := 0, 1, 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				toks = append(toks, pyTok{kind: tkNewline})
			}
			i++
			line++
			col = 0
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
			col = 0
			continue
		case c == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
			line++
			col = 0
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			col++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		}
		startCol := col
		if p, q := pyStringStart(src[i:]); q != 0 {
			kind, lit, plain := tkString, src[i:], p
			if strings.Contains(p, "f") {
				// Read an f-string as the plain literal of the same quotes
				// (its {fields} are text there): not a value.
				kind, plain = tkFString, strings.Replace(p, "f", "", 1)
				lit = plain + src[i+len(p):]
			}
			val, n, nl, err := pyString(lit, plain, q)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			n += len(p) - len(plain)
			toks = append(toks, pyTok{kind: kind, text: val, col: startCol})
			i += n
			line += nl
			col += n // only used for "at line start", so exactness after newlines does not matter
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == '_' || unicode.IsLetter(r) {
			j := i
			for j < len(src) {
				r2, s2 := utf8.DecodeRuneInString(src[j:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				j += s2
			}
			toks = append(toks, pyTok{kind: tkName, text: src[i:j], col: startCol})
			col += j - i
			i = j
			continue
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(0, depth-1)
		}
		op := string(r)
		if c == '=' && i+1 < len(src) && src[i+1] == '=' {
			op = "=="
			size = 2
		}
		toks = append(toks, pyTok{kind: tkOp, text: op, col: startCol})
		i += size
		col += size
	}
	return toks, nil
}

// pyStringStart recognises a string literal's prefix and quote: it returns
// the prefix (lower case) and the quote character, or q 0.
func pyStringStart(s string) (prefix string, q byte) {
	j := 0
	for j < len(s) && j < 3 && strings.ContainsRune("rRuUbBfF", rune(s[j])) {
		j++
	}
	if j < len(s) && (s[j] == '\'' || s[j] == '"') {
		p := strings.ToLower(s[:j])
		switch p {
		case "", "r", "u", "b", "br", "rb", "f", "fr", "rf":
			return p, s[j]
		}
	}
	return "", 0
}

// pyString decodes the literal at the start of s: its value, the bytes
// consumed and the newlines crossed.
func pyString(s, prefix string, q byte) (string, int, int, error) {
	raw := strings.Contains(prefix, "r")
	i := len(prefix)
	triple := strings.HasPrefix(s[i:], strings.Repeat(string(q), 3))
	closing := string(q)
	if triple {
		closing = strings.Repeat(string(q), 3)
	}
	i += len(closing)
	var b strings.Builder
	nl := 0
	for {
		if i >= len(s) {
			return "", 0, 0, errors.New("unterminated string literal")
		}
		if strings.HasPrefix(s[i:], closing) {
			return b.String(), i + len(closing), nl, nil
		}
		c := s[i]
		if c == '\n' {
			if !triple {
				return "", 0, 0, errors.New("newline in a single-quoted string literal")
			}
			nl++
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, 0, errors.New("unterminated string literal")
		}
		if raw {
			// A raw string keeps the backslash; it still escapes the quote.
			b.WriteByte('\\')
			b.WriteByte(s[i+1])
			if s[i+1] == '\n' {
				nl++
			}
			i += 2
			continue
		}
		n, err := pyEscape(&b, s[i:])
		if err != nil {
			return "", 0, 0, err
		}
		if s[i+1] == '\n' {
			nl++
		}
		i += n
	}
}

// pyEscape decodes the escape sequence at the start of s (s[0] is the
// backslash) into b and returns its length.
func pyEscape(b *strings.Builder, s string) (int, error) {
	c := s[1]
	simple := map[byte]string{'\\': "\\", '\'': "'", '"': "\"", 'n': "\n", 't': "\t", 'r': "\r",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}
	if v, ok := simple[c]; ok {
		b.WriteString(v)
		return 2, nil
	}
	hex := func(n int) (int, error) {
		if len(s) < 2+n {
			return 0, fmt.Errorf("truncated \\%c escape", c)
		}
		v, err := strconv.ParseUint(s[2:2+n], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, fmt.Errorf("bad \\%c escape %q", c, s[:2+n])
		}
		b.WriteRune(rune(v))
		return 2 + n, nil
	}
	switch {
	case c == 'x':
		return hex(2)
	case c == 'u':
		return hex(4)
	case c == 'U':
		return hex(8)
	case c == 'N':
		return 0, errors.New(`\N{...} escape: named characters are not supported`)
	case c >= '0' && c <= '7':
		j := 1
		for j < 4 && j < len(s) && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(s[1:j], 8, 32)
		b.WriteRune(rune(v))
		return j, nil
	}
	// An unknown escape keeps its backslash, as Python does.
	b.WriteByte('\\')
	return 1, nil
}

// PyFormatToTemplate turns a Python str.format template into a Go
// text/template with the same output: a field {name} becomes
// {{.Name}} (each _-separated part capitalised), {{ and }} become the
// literal braces, and a literal "{" that would start a Go action is
// written as {{"{"}}. Fields with an index, attribute, conversion or format
// spec are refused.
func PyFormatToTemplate(s string) (string, error) {
	var out strings.Builder
	var lit strings.Builder
	names := map[string]string{} // template field → Python name
	flush := func(nextIsAction bool) {
		out.WriteString(goLiteral(lit.String(), nextIsAction))
		lit.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return "", fmt.Errorf("single '}' at byte %d of a format string", i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed '{' at byte %d of a format string", i)
			}
			name := s[i+1 : i+end]
			field, err := goField(name)
			if err != nil {
				return "", err
			}
			if prev, ok := names[field]; ok && prev != name {
				return "", fmt.Errorf("format fields {%s} and {%s} both become {{.%s}}", prev, name, field)
			}
			names[field] = name
			flush(true)
			out.WriteString("{{." + field + "}}")
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush(false)
	return out.String(), nil
}

// PyTextToTemplate makes a Go template whose output is exactly s.
func PyTextToTemplate(s string) string { return goLiteral(s, false) }

// goLiteral writes text as template source that outputs it: every "{"
// followed by "{" (or ending the text when an action follows) is written
// as an action printing "{".
func goLiteral(s string, nextIsAction bool) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && ((i+1 < len(s) && s[i+1] == '{') || (i+1 == len(s) && nextIsAction)) {
			b.WriteString(`{{"{"}}`)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// goField maps a Python field name to a template field.
func goField(name string) (string, error) {
	if name == "" {
		return "", errors.New("positional field {} in a format string: name the field")
	}
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		for i, r := range part {
			ok := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9')
			if !ok {
				return "", fmt.Errorf("format field {%s}: only plain names are supported", name)
			}
		}
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("format field {%s}: only plain names are supported", name)
	}
	return b.String(), nil
}
