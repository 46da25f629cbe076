package mathans

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

type pair struct {
	line  int
	equal bool
	a, b  string
	why   string
}

func readPairs(t *testing.T) []pair {
	t.Helper()
	f, err := os.Open("testdata/pairs.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pair
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 || (cols[0] != "=" && cols[0] != "!=") {
			t.Fatalf("pairs.tsv:%d: want verdict, a, b, why", n)
		}
		out = append(out, pair{n, cols[0] == "=", cols[1], cols[2], cols[3]})
	}
	if len(out) < 50 {
		t.Fatalf("only %d pairs", len(out))
	}
	return out
}

func TestPairs(t *testing.T) {
	ctx := context.Background()
	for _, p := range readPairs(t) {
		for _, swap := range []bool{false, true} {
			a, b := p.a, p.b
			if swap {
				a, b = b, a
			}
			if got := Equal(ctx, a, b); got != p.equal {
				t.Errorf("pairs.tsv:%d: Equal(%q, %q) = %v, want %v (%s)", p.line, a, b, got, p.equal, p.why)
			}
		}
	}
}

// TestKeysFollowEquality: answers the rule calls equal vote together, and
// the fixture's unequal pairs do not share a key, except where the
// percentage rule (50% is 50 or 1/2) or a list's "and" makes a key coarser
// or finer than the comparison.
func TestKeysFollowEquality(t *testing.T) {
	ctx := context.Background()
	for _, p := range readPairs(t) {
		ka, kb := Key(ctx, p.a), Key(ctx, p.b)
		if strings.Contains(p.a+p.b, "%") {
			continue // a key picks one reading of a percentage
		}
		if p.equal && ka != kb && !strings.Contains(p.why, "keys differ") {
			t.Errorf("pairs.tsv:%d: %q and %q are equal but key %q and %q", p.line, p.a, p.b, ka, kb)
		}
		if !p.equal && ka == kb {
			t.Errorf("pairs.tsv:%d: %q and %q are unequal but share the key %q", p.line, p.a, p.b, ka)
		}
	}
	if k := Key(ctx, "\\frac12"); k != Key(ctx, "0.5") || k != Key(ctx, "\\dfrac{1}{2}") || k != "1/2" {
		t.Errorf("keys of one half: %q %q %q", k, Key(ctx, "0.5"), Key(ctx, "\\dfrac{1}{2}"))
	}
}

func TestExtract(t *testing.T) {
	for _, c := range []struct {
		out, want string
		ok        bool
	}{
		{"so $\\boxed{5}$.", "5", true},
		{"first \\boxed{1} then \\boxed{\\frac{1}{2}}", "\\frac{1}{2}", true},
		{"\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}", "\\left( 3, \\frac{\\pi}{2} \\right)", true},
		{"\\boxed{\\{1,2\\}}", "\\{1,2\\}", true},
		{"The answer is \\boxed 5$.", "5", true},
		{"\\fbox{7}", "7", true},
		{"\\boxed{3} and then \\boxed{4", "3", true}, // a truncated last box
		{"Thus the answer is $\\frac{3}{8}$.", "\\frac{3}{8}", true},
		{"The final answer is: 42.\nDone", "42", true},
		{"no answer here", "", false},
		{"\\boxed{}", "", false},
		{"", "", false},
		{strings.Repeat("\\boxed{", 9000), "", false}, // thousands of unclosed boxes: bounded work
		{strings.Repeat("{", 100000) + "\\boxed{9}", "9", true},
		{"\\boxed{1} " + strings.Repeat("\\boxed{", 20), "", false}, // too many broken boxes after the last good one
	} {
		start := time.Now()
		got, ok := Extract(c.out)
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("Extract(%.60q) took %v", c.out, d)
		}
		if got != c.want || ok != c.ok {
			t.Errorf("Extract(%.60q) = %q, %v; want %q, %v", c.out, got, ok, c.want, c.ok)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\\left( 1, 2 \\right)", "( 1, 2 )"},
		{"\\dfrac{1}{2}", "\\frac{1}{2}"},
		{"10^\\circ", "10"},
		{"\\$1,000", "1000"},
		{"5 \\text{ cm}^2", "5"},
		{"\\text{4:30 p.m.}", "4:30pm"},
		{"x \\in [0, 1]", "[0, 1]"},
		{"2 and 3", "2, 3"},
		{"\\text{(B)}", "B"},
		{"7.", "7"},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestHendrycks checks the original MATH rule's own behaviour, including
// where it is wrong (it knows no values) and where its Python raises.
func TestHendrycks(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"\\frac{1}{2}", "0.5", true},             // its one decimal special case
		{"\\frac{1}{4}", "0.25", false},           // no values
		{"\\dfrac12", "\\frac{1}{2}", true},       // braces fixed
		{"1/2", "\\frac{1}{2}", true},             // a/b of canonical integers
		{"01/2", "\\frac{1}{2}", false},           // not canonical: left alone
		{"x = 5", "5", true},                      // a short prefix
		{"xyz = 5", "5", false},                   // a long one stays
		{"5 \\text{ cm}", "5", true},              // units after "\text{ "
		{"5\\text{ cm}\\text{ more}", "5", false}, // two: the reference raises, raw strings differ
		{"\\sqrt", "\\sqrt", true},                // raises, raw strings equal
		{"50\\%", "50", true},                     // percent dropped
		{"\\left(1,2\\right)", "(1, 2)", true},    // \left, \right, spaces
		{"1,000", "1000", false},                  // no thousands rule
		{"\\sqrt3", "\\sqrt{3}", true},            // radicand braced
		{"\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}", false},
	} {
		if got := Hendrycks(c.a, c.b); got != c.want {
			t.Errorf("Hendrycks(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Hendrycks(c.b, c.a); got != c.want {
			t.Errorf("Hendrycks(%q, %q) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

// TestBounded: hostile answers return within the context's deadline from
// a goroutine that is not main, with no signal involved.
func TestBounded(t *testing.T) {
	hostile := []string{
		strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		strings.Repeat("2^", 300) + "2",
		strings.Repeat("x+", 450) + "x",
		"10^{10^{10^{10}}}",
		"5000!^{5000!}",
		strings.Repeat("\\sqrt{", 200) + "2" + strings.Repeat("}", 200),
		strings.Repeat("\\frac{1}{", 100) + "2" + strings.Repeat("}", 100),
		strings.Repeat("1,", 400) + "1",
		strings.Repeat("\\pm 1", 50),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, h := range hostile {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			start := time.Now()
			Equal(ctx, h, h+"+1")
			Key(ctx, h)
			cancel()
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%.40q took %v", h, d)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("hostile answers did not return")
	}
}

// TestLongAnswers: answers too long to normalise are compared whole, so two
// that differ only past the normalised prefix are not equal.
func TestLongAnswers(t *testing.T) {
	a := strings.Repeat("1+", 3000) + "1"
	b := strings.Repeat("1+", 3000) + "2"
	if Equal(context.Background(), a, b) || Key(context.Background(), a) == Key(context.Background(), b) {
		t.Error("long answers differing at the end are equal")
	}
	if !Equal(context.Background(), a, " "+a) {
		t.Error("a long answer is not itself")
	}
}

// TestDeadlineStopsWork: a context already expired stops a comparison
// that needs evaluation, and the answer is the texts' verdict.
func TestDeadlineStopsWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if Equal(ctx, "x^2+2x+1", "(x+1)^2") {
		t.Error("a cancelled comparison still evaluated")
	}
	if !Equal(ctx, "\\dfrac{1}{2}", "\\tfrac{1}{2}") {
		t.Error("equal texts need no evaluation")
	}
}

func TestEvaluate(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"\\dbinom{10}{5}", "252", true},
		{"2^{10} - 24", "1000", true},
		{"\\frac{1}{2} + \\frac{1}{3}", "\\frac{5}{6}", true},
		{"-\\frac{6}{8}", "-\\frac{3}{4}", true},
		{"\\sqrt{49}", "7", true},
		{"\\sqrt{2}", "", false},
		{"x + 1", "", false},
		{"(1, 2)", "", false},
		{"\\pi", "", false},
		{"1/0", "", false},
	} {
		got, ok := Evaluate(context.Background(), c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Evaluate(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestConcurrentUse: comparisons from many goroutines at once give the
// sequential verdicts (run with -race).
func TestConcurrentUse(t *testing.T) {
	pairs := readPairs(t)
	want := make([]bool, len(pairs))
	for i, p := range pairs {
		want[i] = Equal(context.Background(), p.a, p.b)
	}
	errs := make(chan string, 16*len(pairs))
	done := make(chan struct{})
	for g := range 16 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range pairs {
				p := pairs[(i+g)%len(pairs)]
				if Equal(context.Background(), p.a, p.b) != want[(i+g)%len(pairs)] {
					errs <- p.a + " vs " + p.b
				}
				Key(context.Background(), p.a)
			}
		}()
	}
	for range 16 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("concurrent verdict differs: %s", e)
	}
}

func TestHendrycksExtract(t *testing.T) {
	for _, c := range []struct {
		out, want string
		ok        bool
	}{
		{"so $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}", true},
		{"\\boxed{1} then \\boxed{2", "", false}, // the last box is unclosed: none
		{"\\fbox{7}", "", false},                 // remove_boxed wants \boxed{
		{"\\boxed 5", "", false},                 // likewise
		{"\\boxed{\\{1,2\\}}", "\\{1,2\\}", true},
		{"\\boxed{\\{1,2}", "", false},      // escaped braces counted too
		{"\\fbox{3} \\boxed{4}", "4", true}, // \boxed first
		{"The answer is 4", "", false},      // no fall-back
	} {
		got, ok := HendrycksExtract(c.out)
		if got != c.want || ok != c.ok {
			t.Errorf("HendrycksExtract(%q) = %q, %v; want %q, %v", c.out, got, ok, c.want, c.ok)
		}
	}
}

// TestDefaultTimeout: a context without a deadline gets DefaultTimeout; a
// caller's own deadline, even a later one, is kept.
func TestDefaultTimeout(t *testing.T) {
	start := time.Now()
	ctx, cancel := withDefault(context.Background())
	defer cancel()
	dl, ok := ctx.Deadline()
	if !ok || dl.Before(start.Add(DefaultTimeout)) || dl.After(time.Now().Add(DefaultTimeout)) {
		t.Errorf("no deadline given: deadline %v (%v), want %v from now", dl.Sub(start), ok, DefaultTimeout)
	}
	if DefaultTimeout <= 0 || DefaultTimeout > 10*time.Second {
		t.Errorf("DefaultTimeout %v: a comparison must be bounded, and by seconds", DefaultTimeout)
	}
	parent, cancelParent := context.WithTimeout(context.Background(), time.Hour)
	defer cancelParent()
	own, cancelOwn := withDefault(parent)
	defer cancelOwn()
	if got, _ := own.Deadline(); got.Before(start.Add(59 * time.Minute)) {
		t.Errorf("the caller's deadline an hour away became %v", got.Sub(start))
	}
	if !Equal(context.Background(), "x^2+2x+1", "(x+1)^2") {
		t.Error("a comparison under the default timeout did not evaluate")
	}
}

// TestHendrycksKey: the original rule's vote key is its normalised string,
// the answer itself where its Python raises.
func TestHendrycksKey(t *testing.T) {
	if a, b := HendrycksKey("\\frac12"), HendrycksKey("\\frac{1}{2}"); a != b || a != "\\frac{1}{2}" {
		t.Errorf("keys of one half: %q %q", a, b)
	}
	if a, b := HendrycksKey("0.5"), HendrycksKey("\\dfrac{1}{2}"); a != b {
		t.Errorf("0.5 and \\dfrac{1}{2}: %q %q", a, b)
	}
	if k := HendrycksKey("3"); k == HendrycksKey("4") {
		t.Errorf("3 and 4 share the key %q", k)
	}
}
