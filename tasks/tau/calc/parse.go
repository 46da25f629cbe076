package calc

import "strings"

// The expression grammar of CPython 3.11 restricted to the calculator's
// alphabet, parsed as CPython's PEG parser parses it: a first pass without
// its error rules; on failure a second pass with them, where the first
// error rule that matches raises its message ("invalid syntax. Perhaps you
// forgot a comma?", "cannot use starred expression here"); else the
// generic "invalid syntax". Tokens are read lazily, and reading the end of
// input with a "(" open raises "'(' was never closed" at that moment, as
// CPython's tokenizer does: which message an input gets depends on how far
// the parser reads, so the rules below read as far as CPython's do.
// Tokenizer errors ("unmatched ')'", leading zeros, too many nested
// parentheses) win over every parser error (CPython tokenizes the rest of
// the input before reporting one).

type tokKind int

const (
	tNum tokKind = iota
	tOp
	tNewline
	tEnd
)

type token struct {
	kind  tokKind
	text  string
	level int // parenthesis depth after the token, as CPython records it
}

// maxLevel is CPython's tokenizer limit on nested parentheses (MAXLEVEL).
const maxLevel = 200

// tokenize splits the input into tokens. It returns the tokenizer's error
// message, if any; eofOpen reports input that ends inside parentheses.
func tokenize(s string) (toks []token, errMsg string, eofOpen bool) {
	level := 0
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
			continue
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			start := i
			fraction := func() {
				// i is just past the '.'
				for i < len(s) && isDigit(s[i]) {
					i++
				}
			}
			switch {
			case c == '.':
				i++
				fraction()
			case c == '0':
				i++
				for i < len(s) && s[i] == '0' {
					i++
				}
				nonzero := false
				for i < len(s) && isDigit(s[i]) {
					nonzero = true
					i++
				}
				if i < len(s) && s[i] == '.' {
					i++
					fraction()
				} else if nonzero {
					return toks, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", false
				}
			default:
				for i < len(s) && isDigit(s[i]) {
					i++
				}
				if i < len(s) && s[i] == '.' {
					i++
					fraction()
				}
			}
			toks = append(toks, token{kind: tNum, text: s[start:i], level: level})
			continue
		case c == '.':
			if strings.HasPrefix(s[i:], "...") {
				toks = append(toks, token{kind: tOp, text: "...", level: level})
				i += 3
			} else {
				toks = append(toks, token{kind: tOp, text: ".", level: level})
				i++
			}
			continue
		case c == '(':
			if level >= maxLevel {
				return toks, "too many nested parentheses", false
			}
			level++
			toks = append(toks, token{kind: tOp, text: "(", level: level})
			i++
			continue
		case c == ')':
			if level == 0 {
				return toks, "unmatched ')'", false
			}
			level--
			toks = append(toks, token{kind: tOp, text: ")", level: level})
			i++
			continue
		case c == '*' || c == '/':
			op := string(c)
			if i+1 < len(s) && s[i+1] == c {
				op += op
			}
			toks = append(toks, token{kind: tOp, text: op, level: level})
			i += len(op)
			continue
		case c == '+' || c == '-':
			toks = append(toks, token{kind: tOp, text: string(c), level: level})
			i++
			continue
		}
		// Evaluate filters the alphabet first.
		return toks, "invalid character", false
	}
	if level > 0 {
		return toks, "", true
	}
	return append(toks, token{kind: tNewline}, token{kind: tEnd}), "", false
}

// node is an expression of the calculator's subset of Python.
type node struct {
	kind  byte   // 'n' number, 'e' Ellipsis, 't' empty tuple, 'u' unary, 'b' binary, 'c' call
	op    string // the operator; for a call "", "*" or "**" (the argument's form), or "()" for no argument
	num   string // a number's text
	left  *node  // operand, left operand, callee
	right *node  // right operand, the call's argument
}

// Depth limits CPython's machine sets (see the package comment).
const (
	maxParserLevel = 5990 // its parser's stack (MAXSTACK 6000, less the rules above a factor)
	maxASTDepth    = 2970 // its compiler's recursion limit at a threaded tool call's depth
)

// memoKey identifies a rule's parse at a position in a mode; CPython's
// parser memoizes the same way, which keeps nested parentheses linear.
type memoKey struct {
	rule    byte
	pos     int
	invalid bool
}

type memoEntry struct {
	n   *node
	end int
}

type parser struct {
	memo      map[memoKey]memoEntry
	toks      []token
	eofOpen   bool
	pos       int
	pass2     bool
	noInvalid int // inside expression_without_invalid
	level     int // recursion of factor/power/atom, for the parser stack limit
}

// parse returns the expression's tree or raises the SyntaxError (or
// MemoryError / RecursionError) CPython raises compiling it for eval.
func parse(src string) *node {
	src = strings.TrimLeft(src, " \t")
	if src == "" {
		syntaxError("invalid syntax", 0)
	}
	toks, errMsg, eofOpen := tokenize(src)
	if errMsg != "" {
		syntaxError(errMsg, 1)
	}
	p := &parser{toks: toks, eofOpen: eofOpen}
	if n := p.eval(); n != nil {
		if depth(n) > maxASTDepth {
			raise("RecursionError", "maximum recursion depth exceeded during compilation")
		}
		return n
	}
	p = &parser{toks: toks, eofOpen: eofOpen, pass2: true}
	p.eval()
	syntaxError("invalid syntax", 1)
	return nil
}

func depth(n *node) int {
	d := 0
	for _, c := range []*node{n.left, n.right} {
		if c != nil {
			d = max(d, depth(c))
		}
	}
	return d + 1
}

// peek reads the token at the position; reading past the end of an input
// with open parentheses raises as CPython's tokenizer does.
func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	if p.eofOpen {
		syntaxError("'(' was never closed", 1)
	}
	return token{kind: tEnd}
}

func (p *parser) isOp(text string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == text
}

// expect consumes the operator if it is next.
func (p *parser) expect(text string) bool {
	if p.isOp(text) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) invalidRules() bool { return p.pass2 && p.noInvalid == 0 }

// memoized runs a rule at the current position once per mode.
func (p *parser) memoized(rule byte, f func() *node) *node {
	k := memoKey{rule: rule, pos: p.pos, invalid: p.invalidRules()}
	if e, ok := p.memo[k]; ok {
		p.pos = e.end
		return e.n
	}
	start := p.pos
	n := f()
	if n == nil {
		p.pos = start
	}
	if p.memo == nil {
		p.memo = map[memoKey]memoEntry{}
	}
	p.memo[k] = memoEntry{n: n, end: p.pos}
	return n
}

func (p *parser) enter() {
	p.level++
	if p.level > maxParserLevel {
		raise("MemoryError", "")
	}
}

func (p *parser) leave() { p.level-- }

// eval: expressions NEWLINE* ENDMARKER
func (p *parser) eval() *node {
	e := p.expression()
	if e == nil {
		return nil
	}
	for p.peek().kind == tNewline {
		p.pos++
	}
	if p.peek().kind != tEnd {
		return nil
	}
	return e
}

// expression: [error rule: a=disjunction b=expression_without_invalid,
// inside brackets] | disjunction
func (p *parser) expression() *node { return p.memoized('x', p.expression1) }

func (p *parser) expression1() *node {
	start := p.pos
	if p.invalidRules() {
		if a := p.disjunction(); a != nil {
			p.noInvalid++
			b := p.disjunction()
			p.noInvalid--
			if b != nil && p.toks[p.pos-1].level != 0 {
				syntaxError("invalid syntax. Perhaps you forgot a comma?", 1)
			}
		}
		p.pos = start
	}
	return p.disjunction()
}

// disjunction stands for disjunction down to sum: the rules between have
// operators outside the alphabet and add nothing but a look at the next
// token, which sum's own look already read.
func (p *parser) disjunction() *node { return p.memoized('d', p.sum) }

func (p *parser) sum() *node {
	left := p.term()
	if left == nil {
		return nil
	}
	for p.isOp("+") || p.isOp("-") {
		save := p.pos
		op := p.peek().text
		p.pos++
		right := p.term()
		if right == nil {
			p.pos = save
			break
		}
		left = &node{kind: 'b', op: op, left: left, right: right}
	}
	return left
}

func (p *parser) term() *node {
	left := p.factor()
	if left == nil {
		return nil
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("//") {
		save := p.pos
		op := p.peek().text
		p.pos++
		right := p.factor()
		if right == nil {
			p.pos = save
			break
		}
		left = &node{kind: 'b', op: op, left: left, right: right}
	}
	return left
}

// factor: '+' factor | '-' factor | power
func (p *parser) factor() *node { return p.memoized('f', p.factor1) }

func (p *parser) factor1() *node {
	p.enter()
	defer p.leave()
	if p.isOp("+") || p.isOp("-") {
		start := p.pos
		op := p.peek().text
		p.pos++
		if f := p.factor(); f != nil {
			return &node{kind: 'u', op: op, left: f}
		}
		p.pos = start
	}
	return p.power()
}

// power: primary '**' factor | primary
func (p *parser) power() *node {
	p.enter()
	defer p.leave()
	a := p.primary()
	if a == nil {
		return nil
	}
	if p.isOp("**") {
		save := p.pos
		p.pos++
		if f := p.factor(); f != nil {
			return &node{kind: 'b', op: "**", left: a, right: f}
		}
		p.pos = save
	}
	return a
}

// primary: primary '.' NAME | primary genexp | primary '(' [arguments] ')' | atom
func (p *parser) primary() *node { return p.memoized('p', p.primary1) }

func (p *parser) primary1() *node {
	a := p.atom()
	if a == nil {
		return nil
	}
	for {
		save := p.pos
		if p.expect(".") {
			p.peek() // a NAME would follow; none can
			p.pos = save
			break
		}
		if p.isOp("(") {
			if p.genexp() {
				p.pos = save // cannot match: no "for"
			}
			p.pos = save
			p.pos++
			arg := p.arguments()
			if p.expect(")") {
				a = arg.call(a)
				continue
			}
			p.pos = save
		}
		break
	}
	return a
}

// callArg is a call's (at most one) argument.
type callArg struct {
	form string // "()" none, "" positional, "*", "**"
	n    *node
}

func (c callArg) call(f *node) *node { return &node{kind: 'c', op: c.form, left: f, right: c.n} }

// arguments: args [','] &')' | [error rules], returning the form "()" when
// there are none (the caller then expects ')').
func (p *parser) arguments() callArg {
	start := p.pos
	// args: starred_expression | expression !'=' ... | kwargs
	if p.isOp("*") {
		p.pos++
		if e := p.expression(); e != nil && p.isOp(")") {
			return callArg{form: "*", n: e}
		}
		p.pos = start
	} else if e := p.expression(); e != nil {
		if p.isOp(")") {
			return callArg{form: "", n: e}
		}
		p.pos = start
	}
	// kwargs: the forms reachable are '*' expression and '**' expression.
	if p.invalidRules() && !p.isOp("*") && !p.isOp("**") {
		// invalid_kwarg: !(NAME '=') a=expression b='='
		p.expression()
		p.pos = start
	}
	if p.expect("*") {
		if e := p.expression(); e != nil && p.isOp(")") {
			return callArg{form: "*", n: e}
		}
	}
	p.pos = start
	if p.expect("**") {
		if e := p.expression(); e != nil && p.isOp(")") {
			return callArg{form: "**", n: e}
		}
	}
	p.pos = start
	if p.invalidRules() {
		// invalid_arguments: each alternative begins with args or an
		// expression, already tried above; none can match without a
		// comma or "for".
		p.expression()
		p.pos = start
	}
	return callArg{form: "()"}
}

// genexp: '(' expression for_if_clauses ')' | [invalid_comprehension];
// it never matches here, but it reads what CPython's attempt reads.
func (p *parser) genexp() bool {
	start := p.pos
	defer func() { p.pos = start }()
	if !p.expect("(") {
		return false
	}
	if p.expression() != nil {
		p.peek() // for_if_clauses wants "for"
	}
	if p.invalidRules() {
		p.pos = start + 1
		if p.expect("*") {
			if p.expression() != nil {
				p.peek()
			}
		}
	}
	return false
}

// atom: NUMBER | '...' | &'(' (tuple | group | genexp)
func (p *parser) atom() *node {
	t := p.peek()
	switch {
	case t.kind == tNum:
		p.pos++
		return &node{kind: 'n', num: t.text}
	case t.kind == tOp && t.text == "...":
		p.pos++
		return &node{kind: 'e'}
	case t.kind == tOp && t.text == "(":
		p.enter()
		defer p.leave()
		if n := p.tuple(); n != nil {
			return n
		}
		if n := p.group(); n != nil {
			return n
		}
		p.genexp()
	}
	return nil
}

// tuple: '(' [star_named_expression ',' [star_named_expressions]] ')':
// without commas only "()" matches.
func (p *parser) tuple() *node {
	start := p.pos
	p.pos++ // '('
	save := p.pos
	if p.starNamedExpression() != nil {
		p.peek() // ','
	}
	p.pos = save
	if p.expect(")") {
		return &node{kind: 't'}
	}
	p.pos = start
	return nil
}

// starNamedExpression: '*' bitwise_or | named_expression
func (p *parser) starNamedExpression() *node {
	start := p.pos
	if p.expect("*") {
		if e := p.disjunction(); e != nil {
			return e
		}
		p.pos = start
		return nil
	}
	return p.namedExpression()
}

// namedExpression: [invalid_named_expression] | expression !':='
func (p *parser) namedExpression() *node {
	start := p.pos
	if p.invalidRules() {
		// a=expression ':=' expression
		p.expression()
		p.pos = start
		// !(list|tuple|genexp|...) a=bitwise_or b='=' ...
		if p.isOp("(") {
			if p.tuple() == nil {
				p.pos = start
				p.genexp()
				p.pos = start
				p.disjunction()
			}
		} else {
			p.disjunction()
		}
		p.pos = start
	}
	return p.expression()
}

// group: '(' named_expression ')' | invalid_group
func (p *parser) group() *node {
	start := p.pos
	p.pos++ // '('
	if e := p.namedExpression(); e != nil && p.expect(")") {
		return e
	}
	p.pos = start + 1
	if p.invalidRules() {
		if p.expect("*") {
			if p.expression() != nil && p.isOp(")") {
				syntaxError("cannot use starred expression here", 1)
			}
		} else if p.expect("**") {
			if p.expression() != nil && p.isOp(")") {
				syntaxError("cannot use double starred expression here", 1)
			}
		}
	}
	p.pos = start
	return nil
}
