package pyval

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// MaxJSONDepth bounds the nesting ParseJSON accepts. CPython's decoder
// stops at its recursion limit (1000 frames, less the caller's depth) with
// a RecursionError; this is that limit for a caller some twenty frames deep.
const MaxJSONDepth = 980

// ParseJSON is json.loads: objects become *Dict in document order (a
// repeated key keeps its first place and its last value), numbers with a
// fraction or exponent float64 and the others ints of any size, NaN,
// Infinity and -Infinity are accepted, "\ud83d\ude00" pairs combine and
// lone surrogates stay. Invalid UTF-8 bytes read as U+FFFD. Errors are
// *Exception with CPython's message (JSONDecodeError "Expecting value: line
// 1 column 1 (char 0)", ValueError for ints past MaxIntDigits digits,
// RecursionError past MaxJSONDepth).
func ParseJSON(data []byte) (v Value, err error) {
	p := &jsonParser{s: sanitize(string(data))}
	if len(p.s) >= 3 && p.s[:3] == "\ufeff" {
		return nil, Errorf("JSONDecodeError", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)")
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Exception)
			if !ok {
				panic(r)
			}
			v, err = nil, e
		}
	}()
	p.skipSpace()
	v = p.value(0)
	p.skipSpace()
	if p.i != len(p.s) {
		p.fail("Extra data", p.i)
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

// fail raises JSONDecodeError at byte offset off, reported as CPython
// reports it: line, column and char index counted in code points.
func (p *jsonParser) fail(msg string, off int) {
	pos := Len(p.s[:off])
	line, col := 1, pos+1
	lastNL := -1
	for i := 0; i < off; i++ {
		if p.s[i] == '\n' {
			line++
			lastNL = i
		}
	}
	if lastNL >= 0 {
		col = Len(p.s[lastNL+1:off]) + 1
	}
	panic(Errorf("JSONDecodeError", "%s: line %d column %d (char %d)", msg, line, col, pos))
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) has(lit string) bool {
	return len(p.s)-p.i >= len(lit) && p.s[p.i:p.i+len(lit)] == lit
}

func (p *jsonParser) value(depth int) Value {
	if p.i >= len(p.s) {
		p.fail("Expecting value", p.i)
	}
	switch c := p.s[p.i]; {
	case c == '"':
		p.i++
		return p.str()
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == 'n' && p.has("null"):
		p.i += 4
		return nil
	case c == 't' && p.has("true"):
		p.i += 4
		return true
	case c == 'f' && p.has("false"):
		p.i += 5
		return false
	case c == 'N' && p.has("NaN"):
		p.i += 3
		return math.NaN()
	case c == 'I' && p.has("Infinity"):
		p.i += 8
		return math.Inf(1)
	case c == '-' && p.has("-Infinity"):
		p.i += 9
		return math.Inf(-1)
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	p.fail("Expecting value", p.i)
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jsonParser) number() Value {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
		if p.i >= len(p.s) {
			p.fail("Expecting value", start)
		}
	}
	switch c := p.s[p.i]; {
	case c >= '1' && c <= '9':
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
	case c == '0':
		p.i++
	default:
		p.fail("Expecting value", start)
	}
	isFloat := false
	if p.i+1 < len(p.s) && p.s[p.i] == '.' && isDigit(p.s[p.i+1]) {
		isFloat = true
		p.i += 2
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		save := p.i
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.i < len(p.s) && isDigit(p.s[p.i]) {
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
			isFloat = true
		} else {
			p.i = save
		}
	}
	text := p.s[start:p.i]
	if isFloat {
		// The text is well formed by construction; out of range it is
		// ±Inf or 0, as float() gives.
		f, _ := strconv.ParseFloat(text, 64)
		return f
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n
	}
	digits := len(text)
	if text[0] == '-' {
		digits--
	}
	if digits > MaxIntDigits {
		panic(Errorf("ValueError", "Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", MaxIntDigits, digits))
	}
	b, _ := new(big.Int).SetString(text, 10)
	return NormInt(b)
}

func hexVal(s string) (rune, bool) {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// str reads a string body; p.i is just past the opening quote.
func (p *jsonParser) str() string {
	begin := p.i - 1
	// Fast path: no escapes.
	for j := p.i; j < len(p.s); j++ {
		c := p.s[j]
		if c == '"' {
			s := p.s[p.i:j]
			p.i = j + 1
			return s
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b []byte
	for {
		if p.i >= len(p.s) {
			p.fail("Unterminated string starting at", begin)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b)
		case c < 0x20:
			p.fail("Invalid control character at", p.i)
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		// An escape.
		p.i++
		if p.i >= len(p.s) {
			p.fail("Unterminated string starting at", begin)
		}
		esc := p.s[p.i]
		if esc != 'u' {
			var out byte
			switch esc {
			case '"', '\\', '/':
				out = esc
			case 'b':
				out = '\b'
			case 'f':
				out = '\f'
			case 'n':
				out = '\n'
			case 'r':
				out = '\r'
			case 't':
				out = '\t'
			default:
				p.fail("Invalid \\escape", p.i-1)
			}
			b = append(b, out)
			p.i++
			continue
		}
		p.i++
		if len(p.s)-p.i < 4 {
			p.fail("Invalid \\uXXXX escape", p.i-1)
		}
		r, ok := hexVal(p.s[p.i:])
		if !ok {
			p.fail("Invalid \\uXXXX escape", p.i-1)
		}
		p.i += 4
		if r >= 0xD800 && r <= 0xDBFF && len(p.s)-p.i >= 2 && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
			if len(p.s)-p.i < 6 {
				p.fail("Invalid \\uXXXX escape", p.i+1)
			}
			r2, ok := hexVal(p.s[p.i+2:])
			if !ok {
				p.fail("Invalid \\uXXXX escape", p.i+1)
			}
			if r2 >= 0xDC00 && r2 <= 0xDFFF {
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				p.i += 6
			}
		}
		b = AppendRune(b, r)
	}
}

func (p *jsonParser) enter(depth int, what string) {
	if depth > MaxJSONDepth {
		panic(Errorf("RecursionError", "maximum recursion depth exceeded while decoding a JSON %s from a unicode string", what))
	}
}

func (p *jsonParser) object(depth int) Value {
	p.enter(depth, "object")
	p.i++
	p.skipSpace()
	d := NewDict(4)
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return d
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			p.fail("Expecting property name enclosed in double quotes", p.i)
		}
		p.i++
		k := p.str()
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			p.fail("Expecting ':' delimiter", p.i)
		}
		p.i++
		p.skipSpace()
		d.Set(k, p.value(depth))
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			p.fail("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.skipSpace()
	}
}

func (p *jsonParser) array(depth int) Value {
	p.enter(depth, "array")
	p.i++
	p.skipSpace()
	l := &List{}
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return l
	}
	for {
		l.Items = append(l.Items, p.value(depth))
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return l
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			p.fail("Expecting ',' delimiter", p.i)
		}
		p.i++
		p.skipSpace()
	}
}

// AppendJSON appends json.dumps(v) with Python's defaults: ", " and ": "
// separators, keys in dict order, every non-ASCII code point as \uXXXX (a
// surrogate pair above U+FFFF), floats as repr, NaN, Infinity, -Infinity.
// The only error is an int past MaxIntDigits.
func AppendJSON(dst []byte, v Value) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case int64, *big.Int:
		return AppendInt(dst, x)
	case float64:
		switch {
		case math.IsNaN(x):
			return append(dst, "NaN"...), nil
		case math.IsInf(x, 1):
			return append(dst, "Infinity"...), nil
		case math.IsInf(x, -1):
			return append(dst, "-Infinity"...), nil
		}
		return AppendFloatRepr(dst, x), nil
	case string:
		return AppendJSONString(dst, x), nil
	case *List:
		dst = append(dst, '[')
		for i, it := range x.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = AppendJSON(dst, it); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *Dict:
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONString(dst, k)
			dst = append(dst, ": "...)
			if dst, err = AppendJSON(dst, x.vals[i]); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, Errorf("TypeError", "Object of type %T is not JSON serializable", v)
}

// DumpJSON is json.dumps(v).
func DumpJSON(v Value) (string, error) {
	b, err := AppendJSON(nil, v)
	return string(b), err
}

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// AppendJSONString appends s as json.dumps (ensure_ascii=True) quotes it:
// only ' '..'~' stay as they are (DEL too is escaped).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				if c < 0x20 || c == 0x7F {
					dst = appendU4(dst, rune(c))
				} else {
					dst = append(dst, c)
				}
			}
			continue
		}
		r, n := DecodeRune(s[i:])
		i += n
		if r >= 0x10000 {
			r -= 0x10000
			dst = appendU4(dst, 0xD800|(r>>10)&0x3FF)
			dst = appendU4(dst, 0xDC00|r&0x3FF)
			continue
		}
		dst = appendU4(dst, r)
	}
	return append(dst, '"')
}
