package game24

import (
	"math/big"
	"strings"
	"testing"
)

func TestParseExpr(t *testing.T) {
	for _, c := range []struct {
		in     string
		value  string // RatString of the value
		str    string // String()
		leaves string // FormatState-like, in order
	}{
		{"24", "24", "24", "24"},
		{"1 + 2 * 3", "7", "1 + 2 * 3", "1 2 3"},
		{"(1 + 2) * 3", "9", "(1 + 2) * 3", "1 2 3"},
		{"10 - 4 - 3", "3", "10 - 4 - 3", "10 4 3"},
		{"10 - (4 - 3)", "9", "10 - (4 - 3)", "10 4 3"},
		{"12 / 6 / 2", "1", "12 / 6 / 2", "12 6 2"},
		{"12 / (6 / 2)", "4", "12 / (6 / 2)", "12 6 2"},
		{"8 / 3 * 9", "24", "8 / 3 * 9", "8 3 9"},
		{"8 / (3 * 9)", "8/27", "8 / (3 * 9)", "8 3 9"},
		{"2 * 3 + 4 * 5", "26", "2 * 3 + 4 * 5", "2 3 4 5"},
		{"2 * (3 + 4) * 5", "70", "2 * (3 + 4) * 5", "2 3 4 5"},
		{"((((4))+((8))))*(6-4)", "24", "(4 + 8) * (6 - 4)", "4 8 6 4"},
		{"(4+8)*(6-4)", "24", "(4 + 8) * (6 - 4)", "4 8 6 4"},
		{"1 + (2 + 3)", "6", "1 + 2 + 3", "1 2 3"},
		{"1 + (2 - 3)", "0", "1 + (2 - 3)", "1 2 3"},
		{"2 * (3 / 4)", "3/2", "2 * (3 / 4)", "2 3 4"},
		{"2 * (3 * 4)", "24", "2 * 3 * 4", "2 3 4"},
		{"(2 * 3) * 4", "24", "2 * 3 * 4", "2 3 4"},
		{"1 - 5", "-4", "1 - 5", "1 5"},
		{"2 * (6 / 2 * 4)", "24", "2 * (6 / 2 * 4)", "2 6 2 4"},
		{"2 * ((6 * 2) * 4)", "96", "2 * 6 * 2 * 4", "2 6 2 4"},
		{"2 * (3 * 4 / 2)", "12", "2 * (3 * 4 / 2)", "2 3 4 2"},
		{"1 + (2 - 3 + 4)", "4", "1 + (2 - 3 + 4)", "1 2 3 4"},
		{"1 + (2 + 3 * 4)", "15", "1 + 2 + 3 * 4", "1 2 3 4"},
		{"(1 + 2) - (3 + 4)", "-4", "1 + 2 - (3 + 4)", "1 2 3 4"},
		{"5 × (5 − 1 ÷ 5)", "24", "5 * (5 - 1 / 5)", "5 5 1 5"},
		{"1.5 * 16", "24", "1.5 * 16", "3/2 16"},
		{"1.50*16.0", "24", "1.5 * 16", "3/2 16"},
		{"0.125 * 192", "24", "0.125 * 192", "1/8 192"},
		{"007 + 17", "24", "7 + 17", "7 17"},
		{" \t4 *\n6 ", "24", "4 * 6", "4 6"},
		{"0 / 5", "0", "0 / 5", "0 5"},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "1", "1", "1"},
		{"123456789012345678901234567890 / 10", "12345678901234567890123456789", "123456789012345678901234567890 / 10", "123456789012345678901234567890 10"},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", c.in, err)
			continue
		}
		if got := e.Value().RatString(); got != c.value {
			t.Errorf("ParseExpr(%q) value = %s, want %s", c.in, got, c.value)
		}
		if got := e.String(); got != c.str {
			t.Errorf("ParseExpr(%q).String() = %q, want %q", c.in, got, c.str)
		}
		var ls []string
		for _, l := range e.Leaves() {
			ls = append(ls, FormatNumber(l))
		}
		if got := strings.Join(ls, " "); got != c.leaves {
			t.Errorf("ParseExpr(%q).Leaves() = %s, want %s", c.in, got, c.leaves)
		}
		checkRoundTrip(t, e)
	}
}

// checkRoundTrip asserts that e.String() parses back to the same value,
// leaves, Canonical form and String.
func checkRoundTrip(t *testing.T, e *Expr) {
	t.Helper()
	s := e.String()
	e2, err := ParseExpr(s)
	if err != nil {
		t.Fatalf("String() %q does not parse: %v", s, err)
	}
	if e2.Value().Cmp(e.Value()) != 0 {
		t.Fatalf("round trip of %q: value %s != %s", s, e2.Value(), e.Value())
	}
	if Canonical(e2) != Canonical(e) {
		t.Fatalf("round trip of %q: Canonical %q != %q", s, Canonical(e2), Canonical(e))
	}
	if e2.String() != s {
		t.Fatalf("String not idempotent: %q -> %q", s, e2.String())
	}
	l1, l2 := e.Leaves(), e2.Leaves()
	if len(l1) != len(l2) {
		t.Fatalf("round trip of %q: %d leaves, want %d", s, len(l2), len(l1))
	}
	for i := range l1 {
		if l1[i].Cmp(l2[i]) != 0 {
			t.Fatalf("round trip of %q: leaf %d is %s, want %s", s, i, l2[i], l1[i])
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, c := range []struct {
		in, errPart string
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"1 / 0", "division by zero"},
		{"4 / (2 - 2)", "division by zero"},
		{"1 / (0 * 5)", "division by zero"},
		{"2 ** 3", "**"},
		{"2 * * 3", "**"},
		{"2 ^ 3", "'^'"},
		{"(1 + 2", "unbalanced"},
		{"1 + 2)", "unbalanced"},
		{"((1 + 2)", "unbalanced"},
		{")(", "unexpected ')'"},
		{"()", "unexpected ')'"},
		{"-1 + 25", "unary"},
		{"2 * -3", "unary"},
		{"+24", "unary"},
		{"4 * (-6)", "unary"},
		{"1 + 2 +", "end of expression"},
		{"1 2", "after a complete expression"},
		{"(1)(2)", "after a complete expression"},
		{"4 * 6 = 24", "unexpected character '='"},
		{"x + 1", "unexpected character 'x'"},
		{"10 % 3", "unexpected character '%'"},
		{"sqrt(576)", "unexpected character 's'"},
		{"2e3", "unexpected character 'e'"},
		{"1,5 * 16", "unexpected character ','"},
		{"5.", "malformed number"},
		{".5 * 48", "decimal point"},
		{"1.2.3", "decimal point"},
		{"４ * 6", "unexpected character"}, // fullwidth digit
		{"4 · 6", "unexpected character"},
		{"4 \xff 6", "invalid UTF-8"},
		{"1" + strings.Repeat(" ", 1000), "oversized"},
		{strings.Repeat("(", 101) + "1" + strings.Repeat(")", 101), "nested deeper"},
		{strings.Repeat("(", 500), "nested deeper"},
	} {
		e, err := ParseExpr(c.in)
		if err == nil {
			t.Errorf("ParseExpr(%q) = %v, want error containing %q", c.in, e, c.errPart)
			continue
		}
		if !strings.Contains(err.Error(), c.errPart) {
			t.Errorf("ParseExpr(%q) error %q, want it to contain %q", c.in, err, c.errPart)
		}
	}
	// Exactly MaxExprLen bytes is fine.
	if _, err := ParseExpr("1" + strings.Repeat(" ", MaxExprLen-1)); err != nil {
		t.Errorf("1000-byte input: %v", err)
	}
	// A long flat chain (no nesting) is fine too.
	if e, err := ParseExpr(strings.Repeat("1+", 499) + "1"); err != nil || e.Value().Cmp(big.NewRat(500, 1)) != 0 {
		t.Errorf("long chain: %v %v", e, err)
	}
}

func TestCanonical(t *testing.T) {
	same := [][]string{
		{"(4+8)*(6-4)", "(6 - 4) * (4 + 8)", "(8+4)*(6-4)", "((4 + 8)) * ((6 - 4))"},
		{"1 + 2 + 3", "3 + (2 + 1)", "(1 + 3) + 2", "2+1+3"},
		{"2 * 3 * 4", "4 * (3 * 2)", "(2 * 4) * 3"},
		{"4 * 5 + 10 - 6", "(5 * 4 + 10) - 6", "(10 + 4 * 5) - 6"},
		{"1.5 * 16", "16 * 1.50"},
		{"4.0 * 6", "6 * 4"},
		{"5 × (5 − 1 ÷ 5)", "(5 - 1/5) * 5"},
	}
	for _, group := range same {
		want := Canonical(mustParse(t, group[0]))
		for _, s := range group[1:] {
			if got := Canonical(mustParse(t, s)); got != want {
				t.Errorf("Canonical(%q) = %q, want %q (as for %q)", s, got, want, group[0])
			}
		}
	}
	different := [][2]string{
		{"10 - 6", "6 - 10"},
		{"8 / 4", "4 / 8"},
		{"1 - (2 - 3)", "1 - 2 + 3"},     // equal value, not identified
		{"8 / (4 / 2)", "8 * 2 / 4"},     // equal value, not identified
		{"2 * (3 + 4)", "2 * 3 + 2 * 4"}, // distributivity is not identified
		{"1 * 24", "24"},
		{"(1 + 2) * 3", "1 + 2 * 3"},
		{"1 + 2 * 3", "(1 + 2) * 3"},
		{"2 + 2", "2 * 2"},
		{"12 - 6 - 2", "12 - (6 - 2)"},
		{"(1 + 2) + 3", "(1 + 2) * 3"},
	}
	for _, d := range different {
		if a, b := Canonical(mustParse(t, d[0])), Canonical(mustParse(t, d[1])); a == b {
			t.Errorf("Canonical(%q) == Canonical(%q) == %q, want different", d[0], d[1], a)
		}
	}
	if Canonical(nil) != "" {
		t.Error("Canonical(nil) != \"\"")
	}
}

func mustParse(t testing.TB, s string) *Expr {
	t.Helper()
	e, err := ParseExpr(s)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", s, err)
	}
	return e
}

func TestNilExpr(t *testing.T) {
	var e *Expr
	if e.Value() != nil || e.Leaves() != nil || e.String() != "" {
		t.Error("nil Expr methods should return zero values")
	}
}

func TestValueIsACopy(t *testing.T) {
	e := mustParse(t, "4 * 6")
	e.Value().SetInt64(7)
	e.Leaves()[0].SetInt64(7)
	if e.Value().Cmp(rat24) != 0 || e.Leaves()[0].Cmp(big.NewRat(4, 1)) != 0 {
		t.Error("Value/Leaves expose internal state")
	}
}
