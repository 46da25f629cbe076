package qa

import (
	"math"
	"testing"
)

// The paper rule's quirks, each as eval_gsm.py's compute_accuracy reads it.
func TestDebatePaperRule(t *testing.T) {
	s, err := NewScorer(ScorerDebatePaper, ScorerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	row := func(gold string) Row { return Row{Answers: []string{gold}} }
	cases := []struct {
		name, gold, output, answer string
		correct                    bool
	}{
		{"boxed", "so 18\n#### 18", `The total is \boxed{18}.`, "18", true},
		{"last boxed wins", "#### 18", `\boxed{18} no, \boxed{20}`, "20", false},
		{"empty braces skipped", "#### 18", `\boxed{18} then {}`, "18", true},
		{"braces with letters are no answer", "#### 18", `\boxed{x=5} so 18`, "18", true},
		{"dollars and commas dropped", "#### 1200", `\boxed{$1,200}`, "1200", true},
		{"else the last number", "#### 7", "3 plus 4 is 7 apples", "7", true},
		{"decimal point kept", "#### 7", "it is 7.", "7.", true},
		{"7.0 equals 7", "#### 7", `\boxed{7.0}`, "7.0", true},
		{"no number counts as correct", "#### 7", "I cannot tell.", debateNone, true},
		{"empty output counts as correct", "#### 7", "", debateNone, true},
		{"gold thousands separator reads its last group", "Total 1,450,000\n#### 1,450,000", `\boxed{1450000}`, "1450000", false},
		{"so 000 matches 0", "#### 1,450,000", `\boxed{0}`, "0", true},
		{"gold minus sign dropped", "#### -3", "Answer: -3", "3", true},
		{"prediction minus sign dropped too", "#### 3", "the change is -3", "3", true},
		{"Unicode digits as Python's \\d", "#### 34", "٣٤", "٣٤", true},
		{"two dots: float() would raise", "#### 1", `\boxed{1.2.3}`, "1.2.3", false},
		{"only empty braces: \"\", no fallback, float() would raise", "#### 5", "{} and {$,} then 5", "", false},
		{"a lone dot", "#### 1", `\boxed{.}`, ".", false},
		{"huge is infinity, not equal", "#### 1", `\boxed{` + string(make([]byte, 0)) + "1" + zeros(400) + `}`, "1" + zeros(400), false},
	}
	for _, c := range cases {
		ans, ok := s.Answer(c.output)
		if !ok || ans != c.answer {
			t.Errorf("%s: Answer(%q) = %q %v, want %q", c.name, c.output, ans, ok, c.answer)
			continue
		}
		if key, ok := s.Key(Row{}, ans); !ok || key != ans {
			t.Errorf("%s: the vote key %q should be the raw answer %q", c.name, key, ans)
		}
		if sc := s.Score(row(c.gold), ans); sc.Correct != c.correct {
			t.Errorf("%s: gold %q, answer %q: correct %v, want %v (%s)", c.name, c.gold, ans, sc.Correct, c.correct, sc.Reason)
		}
	}
	if err := s.Check(row("no digits at all")); err == nil {
		t.Error("a gold solution without a number passed the check")
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// Model output is hostile: the paper rule extracts an answer from any
// text, and the answer is "None", "" or the digits and dots of a number.
func FuzzDebatePaperAnswer(f *testing.F) {
	for _, s := range []string{"", `\boxed{1,200}`, "{}", "٣٤.", "no digits", "{$}{.}{1.2.3} 7", "\xff{9}"} {
		f.Add(s)
	}
	s := debatePaperScorer{}
	gold := Row{Answers: []string{"#### 12"}}
	f.Fuzz(func(t *testing.T, out string) {
		ans, ok := s.Answer(out)
		if !ok {
			t.Fatal("no answer: the paper rule always has one")
		}
		if ans != debateNone {
			for _, r := range ans {
				if _, digit := digitValue(r); !digit && r != '.' {
					t.Fatalf("answer %q of %q holds %q", ans, out, r)
				}
			}
		}
		if k, ok := s.Key(gold, ans); !ok || k != ans {
			t.Fatalf("key %q of answer %q", k, ans)
		}
		sc := s.Score(gold, ans)
		if ans == debateNone && !sc.Correct {
			t.Fatalf("no number in %q scored wrong", out)
		}
		if sc.Correct && ans != debateNone {
			if v, ok := pyFloat(ans); !ok || v != 12 {
				t.Fatalf("%q scored right against 12", ans)
			}
		}
	})
}

// Python's float() on each string (python3 printed these).
func TestPyFloatLiteral(t *testing.T) {
	nan := -1.0 // stands for NaN below
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"550", 550, true}, {"550.", 550, true}, {".5", 0.5, true}, {"1_000", 1000, true}, {"1__0", 0, false},
		{"_1", 0, false}, {"1_", 0, false}, {"+3", 3, true}, {"-0", 0, true}, {"1e3", 1000, true},
		{"1e", 0, false}, {"e3", 0, false}, {"٣٤", 34, true}, {"5\n", 5, true}, {"\t7 ", 7, true},
		{"550.\n\nSo", 0, false}, {"1.2.3", 0, false}, {"", 0, false}, {"0x10", 0, false},
		{"1_000.5_5", 1000.55, true}, {"1e1_0", 1e10, true}, {"nan", nan, true}, {"-Infinity", math.Inf(-1), true},
	} {
		got, ok := pyFloatLiteral(c.in)
		if ok != c.ok || (ok && c.want == nan && !math.IsNaN(got)) || (ok && c.want != nan && got != c.want) {
			t.Errorf("float(%q) = %v %v, want %v %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// gen_math.py's reading of an agent's answer, and the vote it feeds.
func TestDebateArithmeticRule(t *testing.T) {
	s, err := NewScorer(ScorerDebateArithmetic, ScorerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gold := Row{Answers: []string{"-12"}}
	for _, c := range []struct {
		out, answer string
		ok, correct bool
	}{
		{"So the result is -12.", "-12", true, true}, // float("-12.") is -12.0
		{"the result is -12", "-12", true, true},     // the last part
		{"-12 is my answer", "-12", true, true},      // the last part that parses
		{"12,5 apples", "12.5", true, false},         // commas read as dots
		{"1,000 is it", "1", true, false},            // "1.000" is 1
		{"no number here", "", false, false},         // abstains
		{"-12.0\n", "-12", true, true},               // equal floats vote alike
		{"result: nan", "", false, false},            // NaN abstains
	} {
		ans, ok := s.Answer(c.out)
		if ok != c.ok || ans != c.answer {
			t.Errorf("Answer(%q) = %q %v, want %q %v", c.out, ans, ok, c.answer, c.ok)
			continue
		}
		if ok && s.Score(gold, ans).Correct != c.correct {
			t.Errorf("%q scored %v", c.out, !c.correct)
		}
	}
}
