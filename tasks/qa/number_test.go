package qa

import (
	"math/big"
	"strings"
	"testing"
)

func rats(t *testing.T, ns []NumberSpan) []string {
	t.Helper()
	var out []string
	for _, n := range ns {
		out = append(out, n.Value.RatString())
	}
	return out
}

func TestNumbers(t *testing.T) {
	ten999 := new(big.Int).Exp(big.NewInt(10), big.NewInt(999), nil).String()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"She has 16 eggs and eats 3.", []string{"16", "3"}},
		{"#### 1,234,567", []string{"1234567"}},
		{"1,23 and 12,3456", []string{"1", "23", "12", "3456"}},
		{"$1,234.50 total", []string{"2469/2"}},
		{"it fell to -5 degrees", []string{"-5"}},
		{"pages 3-4", []string{"3", "4"}},
		{"x = −2", []string{"-2"}},
		{"3/4 of a cake", []string{"3/4"}},
		{"-7/2", []string{"-7/2"}},
		{"1/0 is undefined", nil},
		{"12/25/2020", []string{"12/25", "2020"}},
		{"50% off", []string{"50"}},
		{"about 2.5e-3 litres", []string{"1/400"}},
		{"1E+3", []string{"1000"}},
		{"1e999", []string{ten999}},
		{"1e99999 and 7", []string{"7"}},
		{"3e5x", []string{"3", "5"}},
		{"-0", []string{"0"}},
		{"-0.0", []string{"0"}},
		{"١٢٣", []string{"123"}},          // Arabic-Indic digits
		{"１２", []string{"12"}},            // fullwidth
		{"𝟏𝟐 and 𝟗", []string{"12", "9"}}, // mathematical bold digits
		{"The answer is 3.", []string{"3"}},
		{"", nil},
		{"no digits at all", nil},
		{"a7b", []string{"7"}},
	} {
		if got := rats(t, Numbers(tc.in)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("numbers(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestNumbersBounds(t *testing.T) {
	long := strings.Repeat("9", maxDigits+1)
	if ns := Numbers(long + " 5"); len(ns) != 1 || ns[0].Value.RatString() != "5" {
		t.Errorf("a %d-digit number should not be read: got %v", maxDigits+1, rats(t, ns))
	}
	ok := strings.Repeat("9", maxDigits)
	if ns := Numbers(ok); len(ns) != 1 || len(ns[0].Value.RatString()) != maxDigits {
		t.Errorf("a %d-digit number should be read", maxDigits)
	}
	groups := "1" + strings.Repeat(",000", 2*maxDigits)
	if ns := Numbers(groups); len(ns) != 0 {
		t.Errorf("a number with %d thousands groups should not be read: %v", 2*maxDigits, len(ns))
	}
}

func FuzzNumbers(f *testing.F) {
	for _, s := range []string{"1,234.5", "-3/4", "1e999", "١٢", "$5", "#### 18", "3-4", "−0", "1e-1000", "9/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range Numbers(s) {
			if n.Start < 0 || n.End > len(s) || n.Start >= n.End {
				t.Fatalf("span %d:%d out of %q", n.Start, n.End, s)
			}
			if l := len(n.Value.Num().String()) + len(n.Value.Denom().String()); l > 2*maxDigits+2*maxExponent+4 {
				t.Fatalf("number of %d digits from %q", l, s)
			}
		}
	})
}
