package mathans

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzEqual checks the rule's properties on any pair of texts: no panic,
// symmetry, reflexivity (on the text and on its normalised form), a stable
// key, and an answer within the deadline (plus scheduling slack).
func FuzzEqual(f *testing.F) {
	for _, s := range []string{
		"\\frac{1}{2}", "0.5", "(1, 2]", "\\{1,2\\}", "x^2+1", "\\pm\\sqrt{3}", "2x+y=3",
		"\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}", "\\boxed{5}", "1,000", "50\\%", "\\text{Devon}",
		"\\sqrt[3]{-8}", "10!", "\\log_2 8", "(-\\infty, 1)\\cup(2,\\infty)", "3+4i", "e^{i\\pi}",
	} {
		f.Add(s, "1/2")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("stuck on %q, %q", a, b)) })
		defer watchdog.Stop()
		ab, ba := Equal(ctx, a, b), Equal(ctx, b, a)
		if ctx.Err() == nil && ab != ba { // a comparison cut short may differ
			t.Errorf("Equal(%q, %q) = %v but Equal(%q, %q) = %v", a, b, ab, b, a, ba)
		}
		if !Equal(ctx, a, a) {
			t.Errorf("Equal(%q, itself) is false", a)
		}
		if n := Normalize(a); !Equal(ctx, n, n) {
			t.Errorf("Equal on normalised %q is false", n)
		}
		if Hendrycks(a, b) != Hendrycks(b, a) || !Hendrycks(a, a) {
			t.Errorf("Hendrycks is not symmetric or reflexive on %q, %q", a, b)
		}
		k1 := Key(ctx, a)
		if k2 := Key(ctx, a); ctx.Err() == nil && k1 != k2 {
			t.Errorf("Key(%q) is %q then %q", a, k1, k2)
		}
		Extract(a + "\\boxed{" + b)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q vs %q took %v", a, b, d)
		}
	})
}

// FuzzFallback: on any output the fallback answer, when there is one, is
// a non-empty one-line piece of the output's end, bounded in size; an
// output whose end has a box gives the box to ExtractBoxed.
func FuzzFallback(f *testing.F) {
	for _, s := range []string{"so -5", "we get $x = 5$", "5th", "12\n34", "$$x$$", "\\(\\frac12\\)", "a $b", "3,5", "**1,000**."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		a, ok := Fallback(out)
		if ok != (a != "") {
			t.Fatalf("Fallback(%q) = %q, %v", out, a, ok)
		}
		if !ok {
			return
		}
		tail := out
		if len(tail) > maxOutput {
			tail = tail[len(tail)-maxOutput:]
		}
		if len(a) > maxAnswerBytes || strings.ContainsAny(a, "\n") || !strings.Contains(tail, a) {
			t.Errorf("Fallback(%.80q) = %.80q: not a one-line piece of the output's end within %d bytes", out, a, maxAnswerBytes)
		}
		if b, ok := ExtractBoxed(out + "\\boxed{7}"); !ok || b != "7" {
			t.Errorf("ExtractBoxed after %.40q: %q %v", out, b, ok)
		}
	})
}
