package mathans

import (
	"context"
	"math/big"
)

// Evaluate computes a closed-form numeric expression (no variables) whose
// value is an exact real rational, and writes it as a MATH answer: an
// integer, or \frac{p}{q} with the sign in front. ok is false for anything
// else (variables, irrational or complex values, text, structures). It
// reads text; nothing is run.
func Evaluate(ctx context.Context, expr string) (string, bool) {
	ctx, cancel := withDefault(ctx)
	defer cancel()
	bud := &budget{ctx: ctx}
	a, err := parseAnswer(Normalize(expr), bud)
	if err != nil || a.kind != kScalar || len(varNames(a.expr)) > 0 || hasOp(a.expr, "inf") {
		return "", false
	}
	v, err := eval(a.expr, map[string]num{}, bud)
	if err != nil || !v.exact || v.im.Sign() != 0 || v.re.Num().BitLen() > 200 || v.re.Denom().BitLen() > 200 {
		return "", false
	}
	return RatLatex(v.re), true
}

// RatLatex writes a rational as MATH writes answers: 7, -3, \frac{3}{8},
// -\frac{1}{2}.
func RatLatex(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	n := new(big.Int).Abs(r.Num())
	s := "\\frac{" + n.String() + "}{" + r.Denom().String() + "}"
	if r.Sign() < 0 {
		return "-" + s
	}
	return s
}
