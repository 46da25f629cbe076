package mathans

import (
	"strings"
	"testing"
)

func TestFallback(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"So the result is -5", "-5", true},
		{"Solving, we get $x = 5$", "x = 5", true},
		{"First $x=3$ and then\n$y = 4$.", "y = 4", true},
		{"We have \\(\\frac{1}{2}\\) left over.", "\\frac{1}{2}", true},
		{"Inline $a$ then $b$ on one line", "b", true},
		{"the price is \\$5 and we stop", "5", true}, // an escaped dollar opens no math
		{"$$x = 5$$", "5", true},                     // display math is not inline: its number
		{"a $x\n= 7$ split over lines", "7", true},   // math split over lines is not taken whole
		{"12\n34", "34", true},                       // a number broken over lines is two
		{"the total is **1,000**.", "1,000", true},
		{"So it is 3/4.", "3/4", true},
		{"She finished 5th", "", false},           // inside a word
		{"There were 3 cars, then x2", "", false}, // the last number-word is not a number; no earlier one instead
		{"It is 3,5", "", false},                  // a decimal comma is refused
		{"no numbers at all", "", false},
		{"", "", false},
		{"version v1.2.3", "", false},
		{strings.Repeat("$", 1<<20), "", false},
		{strings.Repeat("x ", 1<<18) + "so 42", "42", true},
		{"7 " + strings.Repeat("x ", 1<<18), "", false}, // only the output's end is read
	} {
		got, ok := Fallback(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Fallback(%.60q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestExtractBoxed(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"so \\boxed{5}.", "5", true},
		{"\\fbox{x+1}", "x+1", true},
		{"The answer is 5", "", false},
		{"we get $x = 5$", "", false},
	} {
		got, ok := ExtractBoxed(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ExtractBoxed(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
