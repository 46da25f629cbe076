package mathans

import "testing"

// TestFallbackNoEarlierLine: a last line whose last number-word is no
// number ("x2", "5th") ends the search: an earlier line's number is not
// taken in its place, as within one line.
func TestFallbackNoEarlierLine(t *testing.T) {
	for _, in := range []string{"There were 3 cars\nthen x2", "42\nShe finished 5th", "7 apples\nit is 3,5\n\n"} {
		if got, ok := Fallback(in); ok || got != "" {
			t.Errorf("Fallback(%q) = %q, %v; want no answer", in, got, ok)
		}
	}
	// A last line with no digit at all does not end it.
	if got, ok := Fallback("so 12\nand that is all."); !ok || got != "12" {
		t.Errorf("Fallback over a line without digits = %q, %v; want 12", got, ok)
	}
}
