package mathans

import (
	"context"
	"math/big"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds a comparison whose context has no deadline.
const DefaultTimeout = 2 * time.Second

type verdict int

const (
	unknown verdict = iota
	yes
	no
)

// Equal reports whether two answers (already extracted) are the same
// mathematical answer: the same text after normalisation, or the same value
// or structure as the parser reads them. It is symmetric, true for equal
// texts, and bounded: it returns by ctx's deadline (or DefaultTimeout) from
// any goroutine, a comparison cut short by it falling back to the texts.
func Equal(ctx context.Context, a, b string) bool {
	if len(a) > maxNormalize || len(b) > maxNormalize {
		// Normalize reads only the start of so long an answer: compare it
		// whole, as text.
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	if textKey(a) == textKey(b) {
		return true
	}
	ctx, cancel := withDefault(ctx)
	defer cancel()
	bud := &budget{ctx: ctx}
	for _, x := range percentForms(Normalize(a)) {
		for _, y := range percentForms(Normalize(b)) {
			ax, err1 := parseAnswer(x, bud)
			by, err2 := parseAnswer(y, bud)
			if err1 != nil || err2 != nil {
				// Text: "\text{Devon}" is "devon", whatever the case.
				if foldedKey(x) == foldedKey(y) {
					return true
				}
				continue
			}
			if compare(ax, by, bud) == yes {
				return true
			}
			if bud.ctx.Err() != nil || bud.steps > maxSteps {
				return false
			}
		}
	}
	return false
}

func withDefault(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}

// percentForms: "50%" may mean 50 or one half; a reader accepts either.
func percentForms(a string) []string {
	if s, ok := strings.CutSuffix(a, "%"); ok && s != "" && !strings.Contains(s, "%") {
		return []string{s, "(" + s + ")/100"}
	}
	return []string{a}
}

func compare(a, b *answer, bud *budget) verdict {
	if bud.tick() != nil {
		return unknown
	}
	// A one-element list is its element; a row or column vector is a tuple.
	if a.kind == kSet && len(a.elems) == 1 {
		a = a.elems[0]
	}
	if b.kind == kSet && len(b.elems) == 1 {
		b = b.elems[0]
	}
	a, b = vectorAsTuple(a), vectorAsTuple(b)
	a, b = asEquation(a, b), asEquation(b, a)
	if a.kind != b.kind {
		return no
	}
	switch a.kind {
	case kScalar:
		return exprEqual(a.expr, b.expr, bud)
	case kEq:
		return eqEqual(a.expr, b.expr, bud, false)
	case kIneq:
		if a.strict != b.strict {
			return no
		}
		return eqEqual(a.expr, b.expr, bud, true)
	case kTuple:
		if a.open != b.open || a.close != b.close || len(a.elems) != len(b.elems) {
			return no
		}
		for i := range a.elems {
			if v := compare(a.elems[i], b.elems[i], bud); v != yes {
				return v
			}
		}
		return yes
	case kSet, kUnion:
		return matchAll(a.elems, b.elems, bud)
	case kMatrix:
		if len(a.rows) != len(b.rows) || len(a.rows[0]) != len(b.rows[0]) {
			return no
		}
		for i := range a.rows {
			for j := range a.rows[i] {
				if v := exprEqual(a.rows[i][j], b.rows[i][j], bud); v != yes {
					return v
				}
			}
		}
		return yes
	}
	return unknown
}

// asEquation reads "y = 2x + 3" as an equation when the other answer is
// one ("2x - y + 3 = 0").
func asEquation(a, other *answer) *answer {
	if other.kind != kEq || a.kind != kScalar || a.assign == nil {
		return a
	}
	return &answer{kind: kEq, expr: &node{op: "+", args: []*node{a.assign, {op: "neg", args: []*node{a.expr}}}}}
}

func vectorAsTuple(a *answer) *answer {
	if a.kind != kMatrix || (len(a.rows) != 1 && len(a.rows[0]) != 1) || len(a.rows)*len(a.rows[0]) < 2 {
		return a
	}
	t := &answer{kind: kTuple, open: "(", close: ")"}
	for _, r := range a.rows {
		for _, c := range r {
			t.elems = append(t.elems, &answer{kind: kScalar, expr: c})
		}
	}
	return t
}

// matchAll decides two multisets equal when a perfect matching of equal
// elements exists (augmenting paths, so the answer does not depend on
// which side is which).
func matchAll(a, b []*answer, bud *budget) verdict {
	if len(a) != len(b) {
		return no
	}
	if len(a) > 32 {
		return unknown
	}
	eq := make([][]bool, len(a))
	for i := range a {
		eq[i] = make([]bool, len(b))
		for j := range b {
			eq[i][j] = compare(a[i], b[j], bud) == yes
		}
	}
	matchB := make([]int, len(b))
	for j := range matchB {
		matchB[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range b {
			if eq[i][j] && !seen[j] {
				seen[j] = true
				if matchB[j] < 0 || try(matchB[j], seen) {
					matchB[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range a {
		if !try(i, make([]bool, len(b))) {
			return no
		}
	}
	return yes
}

// infSign is +1 or -1 for ±∞, 0 for anything else.
func infSign(n *node) int {
	switch {
	case n.op == "inf":
		return 1
	case n.op == "neg" && len(n.args) == 1:
		return -infSign(n.args[0])
	}
	return 0
}

// points are the assignments expressions with variables are compared at:
// fixed rationals, the same for both sides, so equal expressions agree
// exactly where arithmetic stays exact.
const nPoints = 5

func points(names []string) []map[string]num {
	out := make([]map[string]num, nPoints)
	for k := range out {
		out[k] = map[string]num{}
		for v, name := range names {
			// Distinct, non-integer, mostly positive values: 37/11, 53/17, ...
			p := int64(7 + 31*k + 13*v + 5*k*v)
			q := int64(3 + 2*((k+2*v)%5))
			if (k+v)%4 == 3 {
				p = -p
			}
			out[k][name] = ratNum(big.NewRat(p, q))
		}
	}
	return out
}

func varNames(ns ...*node) []string {
	set := map[string]bool{}
	for _, n := range ns {
		vars(n, set)
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func exprEqual(x, y *node, bud *budget) verdict {
	sx, sy := infSign(x), infSign(y)
	if sx != 0 || sy != 0 {
		if sx == sy {
			return yes
		}
		return no
	}
	names := varNames(x, y)
	pts := []map[string]num{{}}
	if len(names) > 0 {
		pts = points(names)
	}
	agree := 0
	for _, env := range pts {
		vx, ex := eval(x, env, bud)
		vy, ey := eval(y, env, bud)
		switch {
		case ex == errBudget || ey == errBudget:
			return unknown
		case ex != nil && ey != nil:
			continue
		case ex != nil || ey != nil:
			return no
		case !near(vx, vy):
			return no
		}
		agree++
	}
	if agree == 0 || (len(names) > 0 && agree < 2) {
		return unknown
	}
	return yes
}

// eqEqual compares equations by their sides' differences: equal when one
// is a non-zero constant multiple of the other at every point (2x+4y=6 is
// x+2y=3; y=2x+3 is not y=3x+2). An inequality's multiple must be
// positive (positive: -x < -1 is x - 1 > 0 scaled by -1, not x < 1's x - 1 < 0).
func eqEqual(x, y *node, bud *budget, positive bool) verdict {
	names := varNames(x, y)
	if len(names) == 0 {
		return unknown
	}
	var ratio *num
	agree := 0
	for _, env := range points(names) {
		vx, ex := eval(x, env, bud)
		vy, ey := eval(y, env, bud)
		if ex == errBudget || ey == errBudget {
			return unknown
		}
		if ex != nil || ey != nil {
			continue
		}
		if vx.isZero() != vy.isZero() {
			return no
		}
		if vx.isZero() {
			continue
		}
		r, err := div(vx, vy)
		if err != nil {
			return unknown
		}
		if positive && (!r.isReal() || r.complex() == 0 || real(r.complex()) < 0) {
			return no
		}
		if ratio == nil {
			ratio = &r
		} else if !near(*ratio, r) {
			return no
		}
		agree++
	}
	if agree < 2 {
		return unknown
	}
	return yes
}

// Key is an answer's canonical form for majority votes: answers the rule
// reads as the same value share it (\frac12, 0.5 and \dfrac{1}{2} all give
// "1/2"). A percentage keys as its number. Answers the parser does not read
// key by their normalised text.
func Key(ctx context.Context, a string) string {
	if len(a) > maxNormalize {
		return "t:" + strings.TrimSpace(a)
	}
	ctx, cancel := withDefault(ctx)
	defer cancel()
	bud := &budget{ctx: ctx}
	n := Normalize(a)
	if s, ok := strings.CutSuffix(n, "%"); ok && s != "" {
		n = s
	}
	if ans, err := parseAnswer(n, bud); err == nil {
		if k, ok := keyOf(ans, bud); ok {
			return k
		}
	}
	return "t:" + foldedKey(a)
}

func keyOf(a *answer, bud *budget) (string, bool) {
	if bud.tick() != nil {
		return "", false
	}
	if a.kind == kSet && len(a.elems) == 1 {
		a = a.elems[0]
	}
	a = vectorAsTuple(a)
	keys := func(es []*answer) ([]string, bool) {
		var out []string
		for _, e := range es {
			k, ok := keyOf(e, bud)
			if !ok {
				return nil, false
			}
			out = append(out, k)
		}
		return out, true
	}
	switch a.kind {
	case kScalar:
		return exprKey(a.expr, bud)
	case kEq:
		return eqKey(a.expr, bud, false)
	case kIneq:
		k, ok := eqKey(a.expr, bud, true)
		if a.strict {
			return "<" + k, ok
		}
		return "<=" + k, ok
	case kTuple:
		ks, ok := keys(a.elems)
		return a.open + strings.Join(ks, ",") + a.close, ok
	case kSet, kUnion:
		ks, ok := keys(a.elems)
		slices.Sort(ks)
		pre := "{"
		if a.kind == kUnion {
			pre = "U{"
		}
		return pre + strings.Join(ks, ";") + "}", ok
	case kMatrix:
		var rows []string
		for _, r := range a.rows {
			var cells []string
			for _, c := range r {
				k, ok := exprKey(c, bud)
				if !ok {
					return "", false
				}
				cells = append(cells, k)
			}
			rows = append(rows, strings.Join(cells, "&"))
		}
		return "M[" + strings.Join(rows, `\\`) + "]", true
	}
	return "", false
}

func exprKey(x *node, bud *budget) (string, bool) {
	switch infSign(x) {
	case 1:
		return "inf", true
	case -1:
		return "-inf", true
	}
	names := varNames(x)
	if len(names) == 0 {
		v, err := eval(x, map[string]num{}, bud)
		return v.key(), err == nil
	}
	var ks []string
	for _, env := range points(names) {
		v, err := eval(x, env, bud)
		if err != nil {
			return "", false
		}
		ks = append(ks, v.key())
	}
	return "f[" + strings.Join(names, ",") + "]:" + strings.Join(ks, ";"), true
}

// eqKey is an equation's difference scaled by its first non-zero value;
// an inequality's (positive) by that value's magnitude, keeping its sign.
func eqKey(x *node, bud *budget, positive bool) (string, bool) {
	names := varNames(x)
	if len(names) == 0 {
		return "", false
	}
	var base *num
	var ks []string
	for _, env := range points(names) {
		v, err := eval(x, env, bud)
		if err != nil {
			return "", false
		}
		if base == nil && !v.isZero() {
			if positive && (!v.isReal() || real(v.complex()) < 0) {
				if !v.isReal() {
					return "", false
				}
				n := neg(v)
				base = &n
			} else {
				base = &v
			}
		}
		if base == nil {
			ks = append(ks, "0")
			continue
		}
		r, err := div(v, *base)
		if err != nil {
			return "", false
		}
		ks = append(ks, r.key())
	}
	return "eq[" + strings.Join(names, ",") + "]:" + strings.Join(ks, ";"), true
}
