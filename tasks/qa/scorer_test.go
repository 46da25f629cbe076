package qa

import (
	"strings"
	"testing"
)

func mustScorer(t testing.TB, name string, opt ScorerOptions) Scorer {
	t.Helper()
	s, err := NewScorer(name, opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScorers(t *testing.T) {
	choices := []string{"red", "blue", "green"}
	for _, tc := range []struct {
		scorer  string
		opt     ScorerOptions
		gold    []string
		choices []string
		output  string
		correct bool
		answer  string
	}{
		{scorer: "exact", gold: []string{"Paris"}, output: "Thought: ...\nAnswer: paris.", correct: true, answer: "paris"},
		{scorer: "exact", gold: []string{"Paris"}, output: "Answer: The Paris", correct: false, answer: "The Paris"},
		{scorer: "exact:squad", gold: []string{"Paris"}, output: "Answer: The Paris", correct: true, answer: "The Paris"},
		{scorer: "exact:none", gold: []string{"Paris"}, output: "Answer: paris", correct: false, answer: "paris"},
		{scorer: "exact", gold: []string{"NYC", "New York City"}, output: "Answer: new york  city", correct: true, answer: "new york  city"},
		{scorer: "em_f1", gold: []string{"the Beatles"}, output: "Finish[Beatles]", correct: true, answer: "Beatles"},
		{scorer: "em_f1", gold: []string{"Liverpool, England"}, output: "Answer: Liverpool", correct: false, answer: "Liverpool"},
		{scorer: "numeric", gold: []string{"18"}, output: "16 - 3 - 4 = 9\n9 × 2 = 18\nAnswer: $18.", correct: true, answer: "18"},
		{scorer: "numeric", gold: []string{"He makes 18 a day.\n#### 18"}, output: "The answer is 18 dollars.", correct: true, answer: "18"},
		{scorer: "numeric", gold: []string{"70000"}, output: "Answer: $70,000", correct: true, answer: "70,000"},
		{scorer: "numeric", gold: []string{"0.5"}, output: "Answer: 1/2", correct: true, answer: "1/2"},
		{scorer: "numeric", gold: []string{"0"}, output: "Answer: -0", correct: true, answer: "-0"},
		{scorer: "numeric", gold: []string{"12"}, output: "Answer: ١٢", correct: true, answer: "١٢"},
		{scorer: "numeric", gold: []string{"3.14159"}, output: "Answer: 3.14", correct: false, answer: "3.14"},
		{scorer: "numeric:0.01", gold: []string{"3.14159"}, output: "Answer: 3.14", correct: true, answer: "3.14"},
		{scorer: "numeric", opt: ScorerOptions{RelTolerance: 0.01}, gold: []string{"1000"}, output: "Answer: 1009", correct: true, answer: "1009"},
		{scorer: "numeric", gold: []string{"7"}, output: "I do not know.", correct: false, answer: ""},
		{scorer: "numeric", gold: []string{"7"}, output: "Answer: 1e999", correct: false, answer: "1e999"},
		{scorer: "choice", gold: []string{"B"}, choices: choices, output: "Answer: (B)", correct: true, answer: "B"},
		{scorer: "choice", gold: []string{"blue"}, choices: choices, output: "Answer: B. blue", correct: true, answer: "B"},
		{scorer: "choice", gold: []string{"B"}, choices: choices, output: "Answer: blue", correct: true, answer: "B"},
		{scorer: "choice", gold: []string{"B"}, choices: choices, output: "So the answer is (C).", correct: false, answer: "C"},
		{scorer: "choice", gold: []string{"A"}, choices: []string{"a red car", "a bus"}, output: "Answer: A red car", correct: true, answer: "A"},
		{scorer: "choice", gold: []string{"B"}, choices: choices, output: "Answer: D", correct: false, answer: "D"},
		{scorer: "regex", gold: []string{`19[0-9]{2}`}, output: "Answer: 1969", correct: true, answer: "1969"},
		{scorer: "regex", gold: []string{`paris`}, output: "Answer: Paris", correct: false, answer: "Paris"},
		{scorer: "regex:i", gold: []string{`paris`}, output: "Answer: Paris", correct: true, answer: "Paris"},
		{scorer: "regex", gold: []string{`a|b`}, output: "Answer: ab", correct: false, answer: "ab"},
	} {
		s := mustScorer(t, tc.scorer, tc.opt)
		row := Row{Question: "q", Answers: tc.gold, Choices: tc.choices}
		sc := scoreOutput(s, row, tc.output)
		if sc.Correct != tc.correct || (tc.answer != "" && sc.Answer != tc.answer) {
			t.Errorf("%s on %q (gold %q): correct %v answer %q (%s), want %v %q", s.Name(), tc.output, tc.gold, sc.Correct, sc.Answer, sc.Reason, tc.correct, tc.answer)
		}
	}
}

func TestScorerKeys(t *testing.T) {
	row := Row{Choices: []string{"red", "blue"}}
	for _, tc := range []struct {
		scorer, a, b string
		same         bool
	}{
		{"numeric", "Answer: 1,000", "Answer: 1000.0", true},
		{"numeric", "Answer: 0.5", "Answer: 1/2", true},
		{"numeric", "Answer: 5", "Answer: 6", false},
		{"choice", "Answer: B", "Answer: blue", true},
		{"choice", "Answer: (A)", "Answer: B", false},
		{"exact", "Answer: Paris.", "Answer: PARIS", true},
		{"em_f1", "Answer: the Beatles", "Answer: Beatles", true},
		{"regex", "Answer: Paris ", "Answer: paris", true},
	} {
		s := mustScorer(t, tc.scorer, ScorerOptions{})
		ka, oka := s.Answer(tc.a)
		kb, okb := s.Answer(tc.b)
		if !oka || !okb {
			t.Fatalf("%s: no answer in %q or %q", tc.scorer, tc.a, tc.b)
		}
		ka, _ = s.Key(row, ka)
		kb, _ = s.Key(row, kb)
		if (ka == kb) != tc.same {
			t.Errorf("%s: keys %q and %q, want same=%v", tc.scorer, ka, kb, tc.same)
		}
	}
}

func TestNewScorerErrors(t *testing.T) {
	for name, want := range map[string]string{
		"bleu":          `unknown scorer "bleu"`,
		"exact:stem":    "unknown normalisation",
		"numeric:-1":    "want a number at least 0",
		"numeric:x":     "want a number at least 0",
		"choice:strict": "takes no option",
		"regex:x":       "unknown option",
	} {
		if _, err := NewScorer(name, ScorerOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewScorer(%q) = %v, want %q", name, err, want)
		}
	}
}

func TestScorerChecks(t *testing.T) {
	for _, tc := range []struct {
		scorer string
		row    Row
		want   string
	}{
		{"numeric", Row{Answers: []string{"Paris"}}, "has no number"},
		{"choice", Row{Answers: []string{"B"}}, "no choices"},
		{"choice", Row{Answers: []string{"purple"}, Choices: []string{"red", "blue"}}, "names none of the 2 choices"},
		{"regex", Row{Answers: []string{"(unclosed"}}, "not an RE2 regular expression"},
	} {
		err := mustScorer(t, tc.scorer, ScorerOptions{}).Check(tc.row)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s.Check(%+v) = %v, want %q", tc.scorer, tc.row, err, tc.want)
		}
	}
}

// hostile answers every scorer must survive.
var hostile = []string{
	"", "Answer:", "Answer: 1e999", "Answer: 1e-999", "Answer: 99999999999999999999999999999999999999/3",
	"Answer: -0", "Answer: ١٢٣", "Answer: 3/0", "#### ", "Finish[", "Answer: (", "Answer: [Z]",
	"\xff\xfe\xfd", strings.Repeat("9", 100000), strings.Repeat("1,000", 20000), strings.Repeat("Answer: 5\n", 20000),
	"Answer: " + strings.Repeat("(", 10000), strings.Repeat("é", 50000),
}

func FuzzScorers(f *testing.F) {
	for _, h := range hostile {
		f.Add(h, "18")
	}
	f.Add("Answer: B", "blue")
	f.Add("The answer is 3/4.", "0.75")
	f.Fuzz(func(t *testing.T, output, gold string) {
		row := Row{Question: "q", Answers: []string{gold}, Choices: []string{"red", "blue", "green"}}
		for _, name := range []string{"exact", "exact:none", "exact:squad", "em_f1", "numeric", "numeric:0.5", "choice", "regex", "regex:i", "math", "math:hendrycks"} {
			s := mustScorer(t, name, ScorerOptions{RelTolerance: 0.1})
			_ = s.Check(row)
			sc := scoreOutput(s, row, output)
			if ans, ok := s.Answer(output); ok {
				s.Key(row, ans)
				s.Key(Row{}, ans)
				if !sc.Correct && s.Score(row, ans).Correct {
					t.Fatalf("%s: Score and scoreOutput disagree on %q", name, output)
				}
			}
		}
	})
}

func TestHostileAnswers(t *testing.T) {
	row := Row{Question: "q", Answers: []string{"18"}, Choices: []string{"a", "b"}}
	for _, name := range []string{"exact", "em_f1", "numeric", "choice", "regex", "math", "math:hendrycks"} {
		s := mustScorer(t, name, ScorerOptions{})
		for _, h := range hostile {
			if sc := scoreOutput(s, row, h); sc.Correct {
				t.Errorf("%s: %.40q scored correct against 18", name, h)
			}
		}
	}
}

// TestEnormousOutput scores an 8 MB output with every scorer: reading it
// is linear, bounded where it can be, and never a panic.
func TestEnormousOutput(t *testing.T) {
	big := strings.Repeat("Step: 12 × 3 = 36, so the total is 1,234. ", 200000) + "\nAnswer: 18"
	row := Row{Question: "q", Answers: []string{"18"}, Choices: []string{"a", "b"}}
	for _, name := range []string{"exact", "em_f1", "numeric", "choice", "regex"} {
		sc := scoreOutput(mustScorer(t, name, ScorerOptions{}), row, big)
		if name != "choice" && !sc.Correct {
			t.Errorf("%s: the last Answer line is 18: %+v", name, sc.Reason)
		}
	}
}
