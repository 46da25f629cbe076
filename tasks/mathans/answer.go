package mathans

// kinds of parsed answers
const (
	kScalar = iota // an expression
	kEq            // an equation lhs = rhs that is not "x = value"
	kTuple         // (a, b], [a, b): ordered, brackets kept
	kSet           // {a, b} or a bare list "a, b": unordered
	kMatrix        // rows of expressions
	kUnion         // intervals joined by \cup: unordered
	kIneq          // an inequality, read as expr < 0 (strict) or expr <= 0
)

type answer struct {
	kind        int
	open, close string
	expr        *node // kScalar; kEq: lhs - rhs; kIneq: the smaller side minus the larger
	strict      bool  // kIneq: < rather than <=
	// assign is the variable of "y = 2x + 3" read as its value: compared
	// with an equation, the answer is the equation y - (2x + 3) = 0.
	assign *node
	elems  []*answer
	rows   [][]*node
}

// parseAnswer reads a normalised answer's structure.
func parseAnswer(a string, b *budget) (*answer, error) {
	if len(a) > maxAnswerBytes {
		return nil, errParse
	}
	toks, err := tokenize(a)
	if err != nil {
		return nil, err
	}
	return structure(toks, b, 0)
}

// split cuts tokens at top-level separators (outside any bracket).
func split(toks []token, isSep func(token) bool) [][]token {
	var parts [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.kind == tPunct && (t.text == "(" || t.text == "[" || t.text == "{"),
			t.kind == tCmd && (t.text == "\\{" || t.text == "\\lfloor" || t.text == "\\lceil" || t.text == "\\begin"):
			depth++
		case t.kind == tPunct && (t.text == ")" || t.text == "]" || t.text == "}"),
			t.kind == tCmd && (t.text == "\\}" || t.text == "\\rfloor" || t.text == "\\rceil" || t.text == "\\end"):
			depth--
		case depth == 0 && isSep(t):
			parts = append(parts, toks[start:i])
			start = i + 1
		}
	}
	return append(parts, toks[start:])
}

func isPunct(text string) func(token) bool {
	return func(t token) bool { return t.kind == tPunct && t.text == text }
}

// enclosed reports whether toks[0] opens a bracket closed by the last token
// (of any type: intervals mix them).
func enclosed(toks []token) bool {
	if len(toks) < 2 {
		return false
	}
	open, close := toks[0], toks[len(toks)-1]
	if open.kind != tPunct || (open.text != "(" && open.text != "[") ||
		close.kind != tPunct || (close.text != ")" && close.text != "]") {
		return false
	}
	depth := 0
	for i, t := range toks {
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 && i != len(toks)-1 {
				return false
			}
		}
	}
	return depth == 0
}

func structure(toks []token, b *budget, level int) (*answer, error) {
	if level > 8 || len(toks) == 0 {
		return nil, errParse
	}
	if err := b.tick(); err != nil {
		return nil, err
	}
	// x \in S, and a lone variable's "x = value": the value is the answer.
	if len(toks) > 2 && toks[0].kind == tLetter && toks[1].kind == tCmd && toks[1].text == "\\in" {
		return structure(toks[2:], b, level+1)
	}
	if parts := split(toks, func(t token) bool { return t.kind == tCmd && t.text == "\\cup" }); len(parts) > 1 {
		u := &answer{kind: kUnion}
		for _, p := range parts {
			e, err := structure(p, b, level+1)
			if err != nil {
				return nil, err
			}
			u.elems = append(u.elems, e)
		}
		return u, nil
	}
	if toks[0].kind == tCmd && toks[0].text == "\\emptyset" && len(toks) == 1 {
		return &answer{kind: kSet}, nil
	}
	if m, ok, err := matrix(toks, b); ok || err != nil {
		return m, err
	}
	n := len(toks)
	if toks[0].kind == tCmd && toks[0].text == "\\{" && toks[n-1].kind == tCmd && toks[n-1].text == "\\}" {
		inner := toks[1 : n-1]
		set := &answer{kind: kSet}
		if len(inner) == 0 {
			return set, nil
		}
		for _, p := range split(inner, isPunct(",")) {
			e, err := structure(p, b, level+1)
			if err != nil {
				return nil, err
			}
			set.elems = append(set.elems, e)
		}
		return set, nil
	}
	if enclosed(toks) {
		if parts := split(toks[1:n-1], isPunct(",")); len(parts) > 1 {
			tup := &answer{kind: kTuple, open: toks[0].text, close: toks[n-1].text}
			for _, p := range parts {
				e, err := structure(p, b, level+1)
				if err != nil {
					return nil, err
				}
				tup.elems = append(tup.elems, e)
			}
			return tup, nil
		}
	}
	if parts := split(toks, isPunct(",")); len(parts) > 1 {
		set := &answer{kind: kSet}
		for _, p := range parts {
			e, err := structure(p, b, level+1)
			if err != nil {
				return nil, err
			}
			set.elems = append(set.elems, e.flatten()...)
		}
		return set, nil
	}
	if a, ok, err := inequality(toks, b); ok || err != nil {
		return a, err
	}
	if parts := split(toks, isPunct("=")); len(parts) == 2 {
		lhs, rhs := parts[0], parts[1]
		if isLoneVar(lhs) {
			r, err := structure(rhs, b, level+1)
			if err == nil && r.kind == kScalar {
				v, verr := parseExpr(lhs, b)
				if verr != nil {
					return nil, verr
				}
				r.assign = v
			}
			return r, err
		}
		l, err := parseExpr(lhs, b)
		if err != nil {
			return nil, err
		}
		r, err := parseExpr(rhs, b)
		if err != nil {
			return nil, err
		}
		return &answer{kind: kEq, expr: &node{op: "+", args: []*node{l, {op: "neg", args: []*node{r}}}}}, nil
	} else if len(parts) > 2 {
		return nil, errParse
	}
	e, err := parseExpr(toks, b)
	if err != nil {
		return nil, err
	}
	if hasOp(e, "pm") {
		alts := expandPM(e)
		if len(alts) == 1 {
			return nil, errParse
		}
		set := &answer{kind: kSet}
		for _, x := range alts {
			set.elems = append(set.elems, &answer{kind: kScalar, expr: x})
		}
		return set, nil
	}
	return &answer{kind: kScalar, expr: e}, nil
}

// flatten lets "1 \pm 2, 5" be the set {3, -1, 5}.
func (a *answer) flatten() []*answer {
	if a.kind == kSet && len(a.elems) > 0 {
		return a.elems
	}
	return []*answer{a}
}

// isLoneVar reports whether toks are one variable (x, y_1, \theta, f(x) is
// not one): what "x = 5" answers prefix.
func isLoneVar(toks []token) bool {
	if len(toks) == 1 {
		return toks[0].kind == tLetter || toks[0].kind == tCmd && greek[toks[0].text]
	}
	if len(toks) >= 3 && toks[0].kind == tLetter && toks[1].kind == tPunct && toks[1].text == "_" {
		return true
	}
	return false
}

// matrix reads \begin{pmatrix} a & b \\ c & d \end{pmatrix} (or bmatrix,
// matrix, vmatrix is a determinant and not read).
func matrix(toks []token, b *budget) (*answer, bool, error) {
	if len(toks) < 2 || toks[0].kind != tCmd || toks[0].text != "\\begin" {
		return nil, false, nil
	}
	// \begin { pmatrix } ... \end { pmatrix }
	envEnd := -1
	for i := 1; i < len(toks); i++ {
		if toks[i].kind == tPunct && toks[i].text == "}" {
			envEnd = i
			break
		}
	}
	if envEnd < 0 {
		return nil, true, errParse
	}
	env := joinTokens(toks[2:envEnd])
	if env != "pmatrix" && env != "bmatrix" && env != "matrix" {
		return nil, true, errParse
	}
	last := -1
	for i := len(toks) - 1; i > envEnd; i-- {
		if toks[i].kind == tCmd && toks[i].text == "\\end" {
			last = i
			break
		}
	}
	if last < 0 || joinTokens(toks[last+1:]) != "{"+env+"}" {
		return nil, true, errParse
	}
	body := toks[envEnd+1 : last]
	m := &answer{kind: kMatrix}
	for _, row := range split(body, func(t token) bool { return t.kind == tCmd && t.text == "\\\\" }) {
		if len(row) == 0 {
			continue // a trailing \\
		}
		var cells []*node
		for _, c := range split(row, isPunct("&")) {
			e, err := parseExpr(c, b)
			if err != nil {
				return nil, true, err
			}
			cells = append(cells, e)
		}
		if len(m.rows) > 0 && len(cells) != len(m.rows[0]) {
			return nil, true, errParse
		}
		m.rows = append(m.rows, cells)
	}
	if len(m.rows) == 0 {
		return nil, true, errParse
	}
	return m, true, nil
}

// inequality reads "lhs REL rhs" with one relation (<, >, <=, >=, \lt,
// \gt, \leq, \geq) as the smaller side minus the larger, so that
// "5 \geq x" and "x \leq 5" are both x - 5 <= 0. A chain (1 < x < 2) is
// not read.
func inequality(toks []token, b *budget) (*answer, bool, error) {
	at, less, strict := -1, false, false
	for i, t := range toks {
		var l, s bool
		switch {
		case t.kind == tPunct && t.text == "<", t.kind == tCmd && t.text == "\\lt":
			l, s = true, true
		case t.kind == tPunct && t.text == ">", t.kind == tCmd && t.text == "\\gt":
			l, s = false, true
		case t.kind == tCmd && (t.text == "\\leq" || t.text == "\\le" || t.text == "\\leqslant"):
			l = true
		case t.kind == tCmd && (t.text == "\\geq" || t.text == "\\ge" || t.text == "\\geqslant"):
		default:
			continue
		}
		if at >= 0 {
			return nil, false, nil // a chain
		}
		at, less, strict = i, l, s
	}
	if at <= 0 || at == len(toks)-1 {
		return nil, false, nil
	}
	lhs, rhs := toks[:at], toks[at+1:]
	if strict && rhs[0].kind == tPunct && rhs[0].text == "=" { // <= and >=
		strict, rhs = false, rhs[1:]
	}
	l, err := parseExpr(lhs, b)
	if err != nil {
		return nil, false, err
	}
	r, err := parseExpr(rhs, b)
	if err != nil {
		return nil, false, err
	}
	if !less {
		l, r = r, l
	}
	return &answer{kind: kIneq, strict: strict, expr: &node{op: "+", args: []*node{l, {op: "neg", args: []*node{r}}}}}, true, nil
}
