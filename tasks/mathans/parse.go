package mathans

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"strconv"
	"strings"
)

// The parser reads a LaTeX math subset into expression trees. It is a
// reader of text, never an evaluator of code: the only operations are the
// arithmetic and functions listed here, on bounded numbers.

type tokKind int

const (
	tNum tokKind = iota
	tLetter
	tCmd   // \frac, \pi, \{ ...
	tPunct // + - * / ^ _ ( ) [ ] { } , = ! | & ' < > :
)

type token struct {
	kind tokKind
	text string
}

// Input bounds: a longer answer is compared as text only.
const (
	maxAnswerBytes = 1000
	maxTokens      = 400
	maxDepth       = 60
)

var errParse = errors.New("not in the parsed subset")

func tokenize(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			// 1.5e3, 2E-4: scientific notation written plainly.
			if j+1 < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '-' || s[k] == '+') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					m := k
					for m < len(s) && s[m] >= '0' && s[m] <= '9' {
						m++
					}
					if m == len(s) || !isLetter(s[m]) {
						j = m
					}
				}
			}
			out = append(out, token{tNum, s[i:j]})
			i = j
		case isLetter(c):
			out = append(out, token{tLetter, s[i : i+1]})
			i++
		case c == '\\':
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			if j == i+1 {
				if j < len(s) {
					j++ // \{ \} \, \% \\
				}
			}
			cmd := s[i:j]
			switch cmd {
			case "\\,", "\\;", "\\:", "\\!", "\\ ", "\\quad", "\\qquad", "\\displaystyle", "\\left", "\\right", "\\big", "\\Big", "\\bigg", "\\Bigg":
			default:
				out = append(out, token{tCmd, cmd})
			}
			i = j
		case strings.IndexByte("+-*/^_()[]{},=!|&'<>:;", c) >= 0:
			out = append(out, token{tPunct, s[i : i+1]})
			i++
		default:
			if c >= 0x80 {
				r := []rune(s[i:])[0]
				switch r {
				case 'π':
					out = append(out, token{tCmd, "\\pi"})
				case '√':
					out = append(out, token{tCmd, "\\sqrt"})
				case '·', '×':
					out = append(out, token{tPunct, "*"})
				case '−':
					out = append(out, token{tPunct, "-"})
				case '∞':
					out = append(out, token{tCmd, "\\infty"})
				default:
					return nil, errParse
				}
				i += len(string(r))
				continue
			}
			return nil, errParse
		}
		if len(out) > maxTokens {
			return nil, errParse
		}
	}
	return out, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// node is an expression.
type node struct {
	op   string // num var pi inf + * neg / ^ ! fn abs floor ceil binom pm
	name string // variable or function name
	val  *big.Rat
	args []*node
}

var functions = map[string]bool{
	"\\sin": true, "\\cos": true, "\\tan": true, "\\sec": true, "\\csc": true, "\\cot": true,
	"\\arcsin": true, "\\arccos": true, "\\arctan": true, "\\sinh": true, "\\cosh": true, "\\tanh": true,
	"\\ln": true, "\\log": true, "\\exp": true,
}

var greek = map[string]bool{
	"\\alpha": true, "\\beta": true, "\\gamma": true, "\\delta": true, "\\epsilon": true, "\\varepsilon": true,
	"\\zeta": true, "\\eta": true, "\\theta": true, "\\vartheta": true, "\\lambda": true, "\\mu": true,
	"\\nu": true, "\\xi": true, "\\rho": true, "\\sigma": true, "\\tau": true, "\\phi": true, "\\varphi": true,
	"\\chi": true, "\\psi": true, "\\omega": true, "\\Delta": true, "\\Omega": true, "\\Theta": true,
}

type parser struct {
	toks  []token
	pos   int
	depth int
	b     *budget
}

func (p *parser) peek() (token, bool) {
	if p.pos >= len(p.toks) {
		return token{}, false
	}
	return p.toks[p.pos], true
}

func (p *parser) is(kind tokKind, text string) bool {
	t, ok := p.peek()
	return ok && t.kind == kind && t.text == text
}

func (p *parser) punct(text string) bool { return p.is(tPunct, text) }

func (p *parser) expect(text string) error {
	if !p.punct(text) {
		return errParse
	}
	p.pos++
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errParse
	}
	return p.b.tick()
}

// parseExpr reads a whole token list as one expression.
func parseExpr(toks []token, b *budget) (*node, error) {
	if len(toks) == 0 {
		return nil, errParse
	}
	p := &parser{toks: toks, b: b}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, errParse
	}
	return n, nil
}

func (p *parser) expr() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	var terms []*node
	sign := "+"
	switch {
	case p.punct("+"):
		p.pos++
	case p.punct("-"):
		p.pos++
		sign = "-"
	case p.is(tCmd, "\\pm") || p.is(tCmd, "\\mp"):
		p.pos++
		sign = "pm"
	}
	for {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		switch sign {
		case "-":
			t = &node{op: "neg", args: []*node{t}}
		case "pm":
			t = &node{op: "pm", args: []*node{t}}
		}
		terms = append(terms, t)
		switch {
		case p.punct("+"):
			sign = "+"
		case p.punct("-"):
			sign = "-"
		case p.is(tCmd, "\\pm") || p.is(tCmd, "\\mp"):
			sign = "pm"
		default:
			if len(terms) == 1 {
				return terms[0], nil
			}
			return &node{op: "+", args: terms}, nil
		}
		p.pos++
	}
}

// startsPrimary reports whether the next token can begin a factor of an
// implicit product (2x, 3\sqrt{2}, (a)(b)).
func (p *parser) startsPrimary() bool {
	t, ok := p.peek()
	if !ok {
		return false
	}
	switch t.kind {
	case tNum, tLetter:
		return true
	case tCmd:
		return t.text == "\\frac" || t.text == "\\sqrt" || t.text == "\\pi" || t.text == "\\binom" ||
			t.text == "\\infty" || t.text == "\\lfloor" || t.text == "\\lceil" || functions[t.text] || greek[t.text]
	case tPunct:
		return t.text == "(" || t.text == "{"
	}
	return false
}

func (p *parser) term() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	first, err := p.unary()
	if err != nil {
		return nil, err
	}
	factors := []*node{first}
	for {
		var op string
		switch {
		case p.punct("*") || p.is(tCmd, "\\cdot") || p.is(tCmd, "\\times"):
			op = "*"
			p.pos++
		case p.punct("/") || p.is(tCmd, "\\div"):
			op = "/"
			p.pos++
		case p.startsPrimary():
			op = "*"
			if len(factors) == 1 && p.is(tCmd, "\\frac") {
				if whole, sign := integerLiteral(factors[0]); whole != nil {
					f, err := p.unary()
					if err != nil {
						return nil, err
					}
					if f.op == "/" && isIntLiteral(f.args[0]) && isIntLiteral(f.args[1]) {
						// 137\frac{1}{2} is a mixed number, 137 + 1/2, as
						// MATH writes them, not a product.
						m := &node{op: "+", args: []*node{whole, f}}
						if sign < 0 {
							m = &node{op: "neg", args: []*node{m}}
						}
						factors[0] = m
					} else {
						factors = append(factors, f)
					}
					continue
				}
			}
		default:
			if len(factors) == 1 {
				return factors[0], nil
			}
			return &node{op: "*", args: factors}, nil
		}
		f, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op == "/" {
			prev := factors
			var left *node
			if len(prev) == 1 {
				left = prev[0]
			} else {
				left = &node{op: "*", args: prev}
			}
			factors = []*node{{op: "/", args: []*node{left, f}}}
			continue
		}
		factors = append(factors, f)
	}
}

func (p *parser) unary() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	switch {
	case p.punct("-"):
		p.pos++
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: "neg", args: []*node{n}}, nil
	case p.punct("+"):
		p.pos++
		return p.unary()
	}
	return p.power()
}

func (p *parser) power() (*node, error) {
	base, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if !p.punct("^") {
		return base, nil
	}
	p.pos++
	exp, err := p.exponent()
	if err != nil {
		return nil, err
	}
	n := &node{op: "^", args: []*node{base, exp}}
	for p.punct("!") { // (n^2)! is written with braces; a ! here is on the power
		p.pos++
		n = &node{op: "!", args: []*node{n}}
	}
	return n, nil
}

// exponent reads what follows ^: a group, a parenthesis, a sign and an
// atom, or one atom (2^10 is 1024 in plain text).
func (p *parser) exponent() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.punct("-") {
		p.pos++
		n, err := p.exponent()
		if err != nil {
			return nil, err
		}
		return &node{op: "neg", args: []*node{n}}, nil
	}
	return p.power()
}

func (p *parser) postfix() (*node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.punct("!"):
			p.pos++
			n = &node{op: "!", args: []*node{n}}
		case p.punct("_") && n.op == "var":
			// x_1, a_{n}: a subscript names another variable.
			p.pos++
			t, ok := p.peek()
			if !ok {
				return nil, errParse
			}
			if t.kind == tPunct && t.text == "{" {
				end := p.closing(p.pos)
				if end < 0 {
					return nil, errParse
				}
				n = &node{op: "var", name: n.name + "_" + joinTokens(p.toks[p.pos+1:end])}
				p.pos = end + 1
			} else {
				n = &node{op: "var", name: n.name + "_" + firstChar(p, t)}
			}
		default:
			return n, nil
		}
	}
}

// firstChar consumes one character of the next token (a digit of a number
// token: \frac12, x_12 in LaTeX take one character).
func firstChar(p *parser, t token) string {
	if t.kind == tNum && len(t.text) > 1 {
		p.toks[p.pos] = token{tNum, t.text[1:]}
		return t.text[:1]
	}
	p.pos++
	return t.text
}

func joinTokens(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return b.String()
}

// closing is the index of the token closing the bracket at i.
func (p *parser) closing(i int) int {
	depth := 0
	for j := i; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "{", "(", "[":
			depth++
		case "}", ")", "]":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// arg reads a command's argument: a braced group, or one character or
// atom (\frac12, \sqrt2, \frac\pi2).
func (p *parser) arg() (*node, error) {
	t, ok := p.peek()
	if !ok {
		return nil, errParse
	}
	switch {
	case t.kind == tPunct && t.text == "{":
		p.pos++
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		return n, p.expect("}")
	case t.kind == tNum:
		c := firstChar(p, t)
		return numNode(c)
	case t.kind == tLetter:
		p.pos++
		return &node{op: "var", name: t.text}, nil
	case t.kind == tCmd:
		return p.primary()
	}
	return nil, errParse
}

// numNode reads a number token: digits, a decimal point, and a plain
// exponent (1.5e3) bounded here, since big.Rat.SetString would expand
// 1e999999999 exactly.
func numNode(text string) (*node, error) {
	if len(text) > 400 {
		return nil, errParse
	}
	mant, exp := text, int64(0)
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.ParseInt(text[i+1:], 10, 64)
		if err != nil || e < -1000 || e > 1000 {
			return nil, errParse
		}
		mant, exp = text[:i], e
	}
	r, ok := new(big.Rat).SetString(mant)
	if !ok {
		return nil, errParse
	}
	if exp != 0 {
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(max(exp, -exp)), nil))
		if exp > 0 {
			r.Mul(r, p)
		} else {
			r.Quo(r, p)
		}
	}
	return &node{op: "num", val: r}, nil
}

func (p *parser) primary() (*node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t, ok := p.peek()
	if !ok {
		return nil, errParse
	}
	switch t.kind {
	case tNum:
		p.pos++
		return numNode(t.text)
	case tLetter:
		// A run of four or more letters is a word, not a product of
		// variables: "Devon" is not "Doven".
		run := 0
		for j := p.pos; j < len(p.toks) && p.toks[j].kind == tLetter; j++ {
			run++
		}
		if run >= 4 {
			return nil, errParse
		}
		p.pos++
		if t.text == "i" {
			return &node{op: "i"}, nil
		}
		return &node{op: "var", name: t.text}, nil
	case tPunct:
		switch t.text {
		case "(", "[", "{":
			closer := map[string]string{"(": ")", "[": "]", "{": "}"}[t.text]
			p.pos++
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			return n, p.expect(closer)
		case "|":
			p.pos++
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			return &node{op: "abs", args: []*node{n}}, p.expect("|")
		}
		return nil, errParse
	}
	// A command.
	p.pos++
	switch {
	case t.text == "\\frac" || t.text == "\\binom":
		a, err := p.arg()
		if err != nil {
			return nil, err
		}
		b, err := p.arg()
		if err != nil {
			return nil, err
		}
		op := "/"
		if t.text == "\\binom" {
			op = "binom"
		}
		return &node{op: op, args: []*node{a, b}}, nil
	case t.text == "\\sqrt":
		index := &node{op: "num", val: big.NewRat(2, 1)}
		if p.punct("[") {
			p.pos++
			end := p.pos
			for end < len(p.toks) && !(p.toks[end].kind == tPunct && p.toks[end].text == "]") {
				end++
			}
			if end == len(p.toks) {
				return nil, errParse
			}
			ix, err := parseExpr(p.toks[p.pos:end], p.b)
			if err != nil {
				return nil, err
			}
			index, p.pos = ix, end+1
		}
		a, err := p.arg()
		if err != nil {
			return nil, err
		}
		return &node{op: "^", args: []*node{a, {op: "/", args: []*node{{op: "num", val: big.NewRat(1, 1)}, index}}}}, nil
	case t.text == "\\pi":
		return &node{op: "pi"}, nil
	case t.text == "\\infty" || t.text == "\\infin":
		return &node{op: "inf"}, nil
	case greek[t.text]:
		return &node{op: "var", name: t.text}, nil
	case t.text == "\\lfloor" || t.text == "\\lceil":
		closer := "\\rfloor"
		op := "floor"
		if t.text == "\\lceil" {
			closer, op = "\\rceil", "ceil"
		}
		end := p.pos
		for end < len(p.toks) && !(p.toks[end].kind == tCmd && p.toks[end].text == closer) {
			end++
		}
		if end == len(p.toks) {
			return nil, errParse
		}
		n, err := parseExpr(p.toks[p.pos:end], p.b)
		if err != nil {
			return nil, err
		}
		p.pos = end + 1
		return &node{op: op, args: []*node{n}}, nil
	case functions[t.text]:
		return p.function(t.text)
	}
	return nil, errParse
}

// function reads \sin x, \sin(2x), \sin^2 x, \log_2 8.
func (p *parser) function(name string) (*node, error) {
	var base, power *node
	if name == "\\log" && p.punct("_") {
		p.pos++
		b, err := p.arg()
		if err != nil {
			return nil, err
		}
		base = b
	}
	if p.punct("^") {
		p.pos++
		e, err := p.exponent()
		if err != nil {
			return nil, err
		}
		power = e
	}
	var a *node
	var err error
	if p.punct("(") {
		p.pos++
		if a, err = p.expr(); err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	} else if a, err = p.power(); err != nil {
		return nil, err
	}
	n := &node{op: "fn", name: name, args: []*node{a}}
	if base != nil {
		n = &node{op: "/", args: []*node{n, {op: "fn", name: "\\ln", args: []*node{base}}}}
		n.args[0].name = "\\ln"
	}
	if power != nil {
		n = &node{op: "^", args: []*node{n, power}}
	}
	return n, nil
}

// budget bounds the work of one comparison: a context deadline (checked
// every few hundred steps, from any goroutine) and a step count.
type budget struct {
	ctx   context.Context
	steps int
}

const maxSteps = 50000

var errBudget = errors.New("comparison out of time or steps")

func (b *budget) tick() error {
	b.steps++
	if b.steps > maxSteps {
		return errBudget
	}
	if b.steps%256 == 1 && b.ctx.Err() != nil {
		return errBudget
	}
	return nil
}

// vars collects a tree's variable names.
func vars(n *node, into map[string]bool) {
	if n == nil {
		return
	}
	if n.op == "var" {
		into[n.name] = true
	}
	for _, a := range n.args {
		vars(a, into)
	}
}

// hasOp reports whether the tree has a node of the op.
func hasOp(n *node, op string) bool {
	if n == nil {
		return false
	}
	if n.op == op {
		return true
	}
	for _, a := range n.args {
		if hasOp(a, op) {
			return true
		}
	}
	return false
}

// expandPM turns a tree with ± into the trees of each sign choice (at most
// maxPM of them).
const maxPM = 4

func expandPM(n *node) []*node {
	count := 0
	var walk func(*node)
	walk = func(n *node) {
		if n.op == "pm" {
			count++
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(n)
	if count == 0 || count > maxPM {
		return []*node{n}
	}
	var out []*node
	for mask := 0; mask < 1<<count; mask++ {
		k := 0
		var build func(*node) *node
		build = func(n *node) *node {
			c := *n
			c.args = make([]*node, len(n.args))
			for i, a := range n.args {
				c.args[i] = build(a)
			}
			if n.op == "pm" {
				neg := mask>>k&1 == 1
				k++
				if neg {
					return &node{op: "neg", args: c.args}
				}
				return c.args[0]
			}
			return &c
		}
		out = append(out, build(n))
	}
	return out
}

// eval computes a tree at an assignment of its variables.
func eval(n *node, env map[string]num, b *budget) (num, error) {
	if err := b.tick(); err != nil {
		return num{}, err
	}
	args := make([]num, len(n.args))
	if n.op != "+" && n.op != "*" { // those fold as they go
		for i, a := range n.args {
			v, err := eval(a, env, b)
			if err != nil {
				return num{}, err
			}
			args[i] = v
		}
	}
	switch n.op {
	case "num":
		return ratNum(n.val), nil
	case "var":
		v, ok := env[n.name]
		if !ok {
			return num{}, fmt.Errorf("variable %s unassigned", n.name)
		}
		return v, nil
	case "i":
		return num{exact: true, re: new(big.Rat), im: big.NewRat(1, 1)}, nil
	case "pi":
		return floatNum(complex(3.141592653589793, 0)), nil
	case "inf":
		return num{}, errDomain
	case "+", "*":
		acc := intNum(0)
		if n.op == "*" {
			acc = intNum(1)
		}
		for _, a := range n.args {
			v, err := eval(a, env, b)
			if err != nil {
				return num{}, err
			}
			if n.op == "+" {
				acc, err = add(acc, v)
			} else {
				acc, err = mul(acc, v)
			}
			if err != nil {
				return num{}, err
			}
		}
		return acc, nil
	case "neg", "pm":
		if n.op == "pm" {
			return num{}, errParse // expanded before evaluation
		}
		return neg(args[0]), nil
	case "/":
		return div(args[0], args[1])
	case "^":
		return pow(args[0], args[1])
	case "!":
		return factorial(args[0])
	case "binom":
		return binom(args[0], args[1])
	case "abs":
		if args[0].exact && args[0].isReal() {
			return ratNum(new(big.Rat).Abs(args[0].re)), nil
		}
		return check(floatNum(complex(cmplx.Abs(args[0].complex()), 0)))
	case "floor", "ceil":
		if !args[0].isReal() {
			return num{}, errDomain
		}
		return roundNum(args[0], n.op == "floor")
	case "fn":
		return applyFn(n.name, args[0])
	}
	return num{}, errParse
}

func binom(a, b num) (num, error) {
	n, ok1 := a.integer()
	k, ok2 := b.integer()
	if !ok1 || !ok2 || n < 0 || n > maxFactorial {
		return num{}, errDomain
	}
	if k < 0 || k > n {
		return intNum(0), nil
	}
	return ratNum(new(big.Rat).SetInt(new(big.Int).Binomial(n, k))), nil
}

func roundNum(a num, floor bool) (num, error) {
	if a.exact {
		q := new(big.Int).Div(a.re.Num(), a.re.Denom()) // Euclidean: floor for a positive denominator
		if !floor && !a.re.IsInt() {
			q.Add(q, big.NewInt(1))
		}
		return ratNum(new(big.Rat).SetInt(q)), nil
	}
	f := real(a.c)
	if floor {
		return check(floatNum(complex(math.Floor(f), 0)))
	}
	return check(floatNum(complex(math.Ceil(f), 0)))
}

// integerLiteral returns the whole number of a factor written as a
// non-negative integer literal, or its negation, with the sign.
func integerLiteral(n *node) (*node, int) {
	if isIntLiteral(n) {
		return n, 1
	}
	if n.op == "neg" && len(n.args) == 1 && isIntLiteral(n.args[0]) {
		return n.args[0], -1
	}
	return nil, 0
}

func isIntLiteral(n *node) bool {
	return n.op == "num" && n.val.IsInt() && n.val.Sign() >= 0
}
