package game24

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxExprLen is the longest input, in bytes, that ParseExpr accepts.
const MaxExprLen = 1000

// MaxExprDepth is the deepest parenthesis nesting ParseExpr accepts.
const MaxExprDepth = 100

// Expr is a parsed arithmetic expression: either a number literal (a leaf) or
// a binary operation (+ - * /) on two sub-expressions. Its value is exact and
// computed when it is built. The zero Expr and a nil *Expr are not valid
// expressions; their methods return zero values rather than panic.
type Expr struct {
	op          byte // 0 for a leaf, else '+', '-', '*' or '/'
	left, right *Expr
	val         *big.Rat // the literal (leaf) or the computed value
}

// ParseExpr parses an arithmetic expression with exact rational arithmetic.
//
// Grammar: non-negative integer or decimal literals ("12", "1.5" = 3/2; a
// decimal point needs digits on both sides), binary + - * / with the usual
// precedence and left associativity, and parentheses. The glyphs × ÷ −
// (U+00D7, U+00F7, U+2212) read as * / -. Whitespace is ignored. Everything
// else is an error: unary minus or plus, "**", "^", letters, "%", "=",
// unbalanced parentheses, empty input, trailing text, invalid UTF-8, input
// longer than MaxExprLen bytes, nesting deeper than MaxExprDepth, and
// division by zero.
func ParseExpr(s string) (*Expr, error) {
	if len(s) > MaxExprLen {
		return nil, fmt.Errorf("expression too long (%d bytes, oversized; max %d)", len(s), MaxExprLen)
	}
	p := &exprParser{s: s}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, errors.New("empty expression")
	}
	e, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	switch p.tok.kind {
	case tokEOF:
		return e, nil
	case tokRParen:
		return nil, fmt.Errorf("unbalanced parentheses: unexpected ')' at offset %d", p.tok.pos)
	default:
		return nil, fmt.Errorf("unexpected %s at offset %d after a complete expression", p.tok.describe(), p.tok.pos)
	}
}

// Value returns a copy of the expression's exact value (nil for a nil Expr).
func (e *Expr) Value() *big.Rat {
	if e == nil || e.val == nil {
		return nil
	}
	return new(big.Rat).Set(e.val)
}

// Leaves returns copies of the number literals, left to right.
func (e *Expr) Leaves() []*big.Rat {
	var out []*big.Rat
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x == nil {
			return
		}
		if x.op == 0 {
			if x.val != nil {
				out = append(out, new(big.Rat).Set(x.val))
			}
			return
		}
		walk(x.left)
		walk(x.right)
	}
	walk(e)
	return out
}

// String returns normalised text: literals in shortest exact form ("1.5",
// not "1.50" or "3/2"), single spaces around operators and the fewest
// parentheses that keep the tree, up to regrouping of chains of + or of *:
// "(4 + 8) * (6 - 4)", "4 * 5 + 10 - 6", "a - (b + c)", "a + (b - c)".
// Parsing the result gives an expression with the same value, Leaves and
// Canonical form.
func (e *Expr) String() string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	e.write(&b)
	return b.String()
}

func (e *Expr) write(b *strings.Builder) {
	if e.op == 0 {
		b.WriteString(formatLiteral(e.val))
		return
	}
	lp := prec(e.left.op) < prec(e.op)
	rp := prec(e.right.op) < prec(e.op) ||
		(prec(e.right.op) == prec(e.op) && !chainable(e.right, e.op))
	writeParen(b, e.left, lp)
	b.WriteByte(' ')
	b.WriteByte(e.op)
	b.WriteByte(' ')
	writeParen(b, e.right, rp)
}

// chainable reports whether x, the right operand of a + or * node with
// operator op, may be written without parentheses: x is itself an op node
// and no operand on its left spine is a - or / node of the same precedence
// (a * (b / c * d) must keep its parentheses: a * b / c * d is (a*b)/c*d).
func chainable(x *Expr, op byte) bool {
	if op != '+' && op != '*' {
		return false
	}
	for x.op == op {
		x = x.left
	}
	return prec(x.op) != prec(op)
}

func writeParen(b *strings.Builder, e *Expr, paren bool) {
	if paren {
		b.WriteByte('(')
	}
	e.write(b)
	if paren {
		b.WriteByte(')')
	}
}

func prec(op byte) int {
	switch op {
	case '+', '-':
		return 1
	case '*', '/':
		return 2
	}
	return 3
}

// Canonical returns a key that is equal for two expressions exactly when they
// are the same up to:
//   - spacing, glyphs and redundant parentheses;
//   - how literals are written (1.5 = 1.50, 4 = 4.0);
//   - commutativity and associativity of + and of *: a maximal chain of the
//     same operator (a+b+c, a+(c+b), (b+a)+c) is one unordered multiset of
//     operands.
//
// It does NOT identify anything else: a-(b-c) differs from a-b+c, a/(b/c)
// from a*c/b, a*(b+c) from a*b+a*c, and 1*a from a, even though their values
// are equal. - and / are never reordered or regrouped. A nil Expr gives "".
func Canonical(e *Expr) string {
	if e == nil {
		return ""
	}
	return canon(e)
}

func canon(e *Expr) string {
	switch e.op {
	case 0:
		return formatLiteral(e.val)
	case '+', '*':
		var parts []string
		var collect func(*Expr)
		collect = func(x *Expr) {
			if x.op == e.op {
				collect(x.left)
				collect(x.right)
				return
			}
			parts = append(parts, canon(x))
		}
		collect(e)
		slices.Sort(parts)
		return "(" + strings.Join(parts, string(e.op)) + ")"
	default:
		return "(" + canon(e.left) + string(e.op) + canon(e.right) + ")"
	}
}

// formatLiteral writes r as an exact decimal when it has a terminating
// expansion ("20", "1.5"), else as "n/d" (only the solver can build such
// leaves, and only from rational states; ParseExpr reads that as a division).
func formatLiteral(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	d := new(big.Int).Set(r.Denom())
	n := 0
	var rem big.Int
	for _, p := range []int64{2, 5} {
		bp := big.NewInt(p)
		k := 0
		for {
			q, m := new(big.Int).QuoRem(d, bp, &rem)
			if m.Sign() != 0 {
				break
			}
			d = q
			k++
		}
		n = max(n, k)
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return r.RatString()
	}
	return r.FloatString(n)
}

func newBinary(op byte, l, r *Expr) (*Expr, error) {
	v, err := Arith(op, l.val, r.val)
	if err != nil {
		return nil, err
	}
	return &Expr{op: op, left: l, right: r, val: v}, nil
}

var errDivZero = errors.New("division by zero")

// Arith computes a op b exactly into a new Rat.
func Arith(op byte, a, b *big.Rat) (*big.Rat, error) {
	if a == nil || b == nil {
		return nil, errors.New("missing operand")
	}
	z := new(big.Rat)
	switch op {
	case '+':
		z.Add(a, b)
	case '-':
		z.Sub(a, b)
	case '*':
		z.Mul(a, b)
	case '/':
		if b.Sign() == 0 {
			return nil, errDivZero
		}
		z.Quo(a, b)
	default:
		return nil, fmt.Errorf("unknown operator %q", op)
	}
	return z, nil
}

// --- tokenizer and recursive-descent parser ---

type tokKind int

const (
	tokEOF tokKind = iota
	tokNum
	tokOp
	tokLParen
	tokRParen
)

type token struct {
	kind tokKind
	pos  int
	op   byte     // tokOp: '+', '-', '*', '/'
	text string   // source text
	num  *big.Rat // tokNum
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokNum:
		return fmt.Sprintf("number %q", t.text)
	case tokLParen:
		return "'('"
	case tokRParen:
		return "')'"
	}
	return fmt.Sprintf("operator %q", t.text)
}

type exprParser struct {
	s     string
	pos   int
	depth int
	tok   token
}

// advance reads the next token into p.tok.
func (p *exprParser) advance() error {
	s := p.s
	for p.pos < len(s) {
		r, size := utf8.DecodeRuneInString(s[p.pos:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("invalid UTF-8 at offset %d", p.pos)
		}
		if !unicode.IsSpace(r) {
			break
		}
		p.pos += size
	}
	start := p.pos
	if p.pos >= len(s) {
		p.tok = token{kind: tokEOF, pos: start}
		return nil
	}
	r, size := utf8.DecodeRuneInString(s[p.pos:])
	if r >= '0' && r <= '9' {
		i := p.pos
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			if i >= len(s) || !isDigit(s[i]) {
				return fmt.Errorf("malformed number %q at offset %d", s[start:i], start)
			}
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
		text := s[start:i]
		v, ok := new(big.Rat).SetString(text)
		if !ok {
			return fmt.Errorf("malformed number %q at offset %d", text, start)
		}
		p.pos = i
		p.tok = token{kind: tokNum, pos: start, text: text, num: v}
		return nil
	}
	p.pos += size
	text := s[start:p.pos]
	switch r {
	case '+':
		p.tok = token{kind: tokOp, pos: start, op: '+', text: text}
	case '-', '\u2212':
		p.tok = token{kind: tokOp, pos: start, op: '-', text: text}
	case '*', '\u00d7':
		p.tok = token{kind: tokOp, pos: start, op: '*', text: text}
	case '/', '\u00f7':
		p.tok = token{kind: tokOp, pos: start, op: '/', text: text}
	case '(':
		p.tok = token{kind: tokLParen, pos: start, text: text}
	case ')':
		p.tok = token{kind: tokRParen, pos: start, text: text}
	case '.':
		return fmt.Errorf("malformed number at offset %d: a decimal point needs digits on both sides", start)
	case '^':
		return fmt.Errorf("'^' (exponentiation) at offset %d is not allowed", start)
	default:
		return fmt.Errorf("unexpected character %q at offset %d", r, start)
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseSum: sum := product { ('+'|'-') product }
func (p *exprParser) parseSum() (*Expr, error) {
	l, err := p.parseProduct()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOp && (p.tok.op == '+' || p.tok.op == '-') {
		op := p.tok.op
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := p.parseProduct()
		if err != nil {
			return nil, err
		}
		if l, err = newBinary(op, l, r); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// parseProduct: product := factor { ('*'|'/') factor }
func (p *exprParser) parseProduct() (*Expr, error) {
	l, err := p.parseFactor()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOp && (p.tok.op == '*' || p.tok.op == '/') {
		op, opPos := p.tok.op, p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		if op == '*' && p.tok.kind == tokOp && p.tok.op == '*' {
			return nil, fmt.Errorf("'**' (exponentiation) at offset %d is not allowed", opPos)
		}
		r, err := p.parseFactor()
		if err != nil {
			return nil, err
		}
		if l, err = newBinary(op, l, r); err != nil {
			return nil, fmt.Errorf("%w at offset %d", err, opPos)
		}
	}
	return l, nil
}

// parseFactor: factor := number | '(' sum ')'
func (p *exprParser) parseFactor() (*Expr, error) {
	t := p.tok
	switch t.kind {
	case tokNum:
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &Expr{val: t.num}, nil
	case tokLParen:
		p.depth++
		if p.depth > MaxExprDepth {
			return nil, fmt.Errorf("parentheses nested deeper than %d", MaxExprDepth)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			if p.tok.kind == tokEOF {
				return nil, fmt.Errorf("unbalanced parentheses: '(' at offset %d is never closed", t.pos)
			}
			return nil, fmt.Errorf("expected ')' at offset %d, found %s", p.tok.pos, p.tok.describe())
		}
		p.depth--
		if err := p.advance(); err != nil {
			return nil, err
		}
		return e, nil
	case tokOp:
		if t.op == '-' || t.op == '+' {
			return nil, fmt.Errorf("unary %q at offset %d is not allowed", t.text, t.pos)
		}
		return nil, fmt.Errorf("expected a number or '(' at offset %d, found %s", t.pos, t.describe())
	case tokRParen:
		return nil, fmt.Errorf("unexpected ')' at offset %d", t.pos)
	default:
		return nil, fmt.Errorf("unexpected end of expression at offset %d", t.pos)
	}
}
