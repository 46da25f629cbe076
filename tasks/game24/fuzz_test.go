package game24

import (
	"math/big"
	"strings"
	"testing"
)

// publishedSeeds returns the distinct puzzles+outputs, Answer expressions
// and step-like lines of the published outputs, as fuzz seeds.
func publishedSeeds(f *testing.F) (outputs [][2]string, exprs, steps []string) {
	seen := map[string]bool{}
	for _, r := range loadPublished(f) {
		if !seen["o"+r.Output] {
			seen["o"+r.Output] = true
			outputs = append(outputs, [2]string{r.Puzzle, r.Output})
		}
		if e, ok := ExtractAnswer(r.Output); ok && !seen["e"+e] {
			seen["e"+e] = true
			exprs = append(exprs, e)
		}
		for _, l := range stepLines(r.Output) {
			if !seen["s"+l] {
				seen["s"+l] = true
				steps = append(steps, l)
			}
		}
	}
	return outputs, exprs, steps
}

func FuzzParseExpr(f *testing.F) {
	_, exprs, _ := publishedSeeds(f)
	for _, e := range exprs {
		f.Add(e)
	}
	for _, e := range []string{"", "1.5 * 16", "5 × (5 − 1 ÷ 5)", "((1))", "1/0", "2**3", "-1", "1 + (2 - 3)", "0.10 / 0.2"} {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpr(s)
		if err != nil {
			if e != nil {
				t.Fatalf("ParseExpr(%q) returned both an Expr and an error", s)
			}
			return
		}
		if e.Value() == nil || len(e.Leaves()) == 0 || Canonical(e) == "" {
			t.Fatalf("ParseExpr(%q): incomplete Expr", s)
		}
		checkRoundTrip(t, e)
	})
}

func FuzzCheck(f *testing.F) {
	outputs, _, _ := publishedSeeds(f)
	for _, o := range outputs {
		f.Add(o[0], o[1])
	}
	f.Add("1 5 5 5", "Answer: 5 * (5 - 1 / 5) = 24")
	f.Add("", "Answer: 24")
	f.Fuzz(func(t *testing.T, puzzle, output string) {
		nums, err := ParsePuzzle(puzzle)
		if err != nil {
			nums = nil
		}
		v := Check(nums, output)
		expr, ok := ExtractAnswer(output)
		if v.Expression != expr {
			t.Fatalf("Expression %q, ExtractAnswer %q", v.Expression, expr)
		}
		if v.Correct != (v.Reason == "") {
			t.Fatalf("Correct %v with Reason %q", v.Correct, v.Reason)
		}
		if !ok && v.Reason != "no answer line" {
			t.Fatalf("no answer line, but %+v", v)
		}
		if v.Correct {
			e, err := ParseExpr(expr)
			if err != nil || e.Value().Cmp(rat24) != 0 || !sameMultiset(e.Leaves(), Rats(nums)) {
				t.Fatalf("Correct but %q: %v", expr, err)
			}
		}
	})
}

func FuzzParseStep(f *testing.F) {
	_, _, steps := publishedSeeds(f)
	for _, s := range steps {
		f.Add(s)
	}
	for _, m := range Moves(rats("8/3 -2 0 9")) {
		f.Add(m.StepLine())
	}
	f.Fuzz(func(t *testing.T, line string) {
		st, err := ParseStep(line)
		if err != nil {
			return
		}
		if st.A == nil || st.B == nil || st.Result == nil || !strings.ContainsRune("+-*/", rune(st.Op)) || st.Op == 0 {
			t.Fatalf("ParseStep(%q) = %+v", line, st)
		}
		if st.HasLeft != (st.Left != nil) {
			t.Fatalf("ParseStep(%q): HasLeft %v, Left %v", line, st.HasLeft, st.Left)
		}
		// Applying to a state holding the operands must not panic, and must
		// succeed exactly when the arithmetic is right.
		state := append([]*big.Rat{st.A, st.B}, st.Left...)
		next, err := Apply(state, st)
		exact, aerr := Arith(st.Op, st.A, st.B)
		if aerr == nil && err == nil && len(next) != len(state)-1 {
			t.Fatalf("Apply(%q): %d numbers from %d", line, len(next), len(state))
		}
		if aerr == nil && st.ResultDecimals == 0 && (err == nil) != (exact.Cmp(st.Result) == 0) {
			t.Fatalf("Apply(%q): err %v, but exact result %s vs written %s", line, err, exact.RatString(), st.Result.RatString())
		}
		// Re-written in StepLine form it parses to the same values.
		m := Move{A: st.A, B: st.B, Op: st.Op, Result: st.Result, Left: st.Left}
		st2, err := ParseStep(m.StepLine())
		if err != nil {
			if len(m.StepLine()) > MaxStepLen {
				return
			}
			t.Fatalf("StepLine %q of %q does not parse: %v", m.StepLine(), line, err)
		}
		if st2.A.Cmp(st.A) != 0 || st2.B.Cmp(st.B) != 0 || st2.Op != st.Op || st2.Result.Cmp(st.Result) != 0 ||
			FormatState(st2.Left) != FormatState(st.Left) {
			t.Fatalf("StepLine round trip of %q: %q", line, m.StepLine())
		}
	})
}
