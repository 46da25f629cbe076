package hotpotqa

import (
	"strings"
	"testing"
)

func TestExtractAnswer(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
		ok       bool
	}{
		{"react finish", "Thought 3: So the answer is Paris.\nAction 3: Finish[Paris]", "Paris", true},
		{"last finish wins", "Action 1: Finish[London]\nObservation 1: ...\nAction 2: Finish[Paris]\n", "Paris", true},
		{"case-insensitive", "action: FINISH[yes]", "yes", true},
		{"lower case", "finish[no]", "no", true},
		{"space before bracket", "Action: Finish [Bath, Maine]", "Bath, Maine", true},
		{"missing bracket at end", "Action 4: Finish[Gesellschaft mit beschränkter Haftung", "Gesellschaft mit beschränkter Haftung", true},
		{"missing bracket before next line", "Action 4: Finish[Paris\nObservation 4: Episode finished", "Paris", true},
		{"nested brackets balanced", "Action: Finish[Blic [newspaper]] see [1]", "Blic [newspaper]", true},
		{"trailing text after bracket", "Finish[Paris] because it is the capital.", "Paris", true},
		{"quotes and period", `Finish[ "Paris". ]`, "Paris", true},
		{"period inside quotes", `Finish["Paris."]`, "Paris", true},
		{"curly quotes", "Finish[“Love and Theft”]", "Love and Theft", true},
		{"single quotes", "Finish['Papa Gino's']", "Papa Gino's", true},
		{"unpaired quote kept", `Finish["Read It and Weep" (2006)]`, `"Read It and Weep" (2006)`, true},
		{"inner quote kept", `Finish[Jonny" Craig]`, `Jonny" Craig`, true},
		{"bold answer", "Finish[**Paris**]", "Paris", true},
		{"multi-line finish", "Action: Finish[\n  Paris\n]", "Paris", true},
		{"multi-line finish unclosed", "Action: Finish[\n\n  Paris\nmore", "Paris", true},
		{"finish preferred over answer line", "Finish[Paris]\nAnswer: London", "Paris", true},
		{"empty finish ignored", "Answer: London\nAction: Finish[]", "London", true},
		{"blank finish falls back to earlier finish", "Finish[Paris]\nFinish[  ]", "Paris", true},
		{"finish inside a word ignored", "Refinish[wood]", "", false},
		{"finished is not finish", "Episode finished, reward = 0", "", false},
		{"answer line", "Thought: Let's think step by step.\nAnswer: Paris", "Paris", true},
		{"last answer line wins", "Answer: London\nAnswer: Paris\n", "Paris", true},
		{"answer case-insensitive", "ANSWER: yes", "yes", true},
		{"answer leading space", "   answer:   Vivendi S.A.  ", "Vivendi S.A", true},
		{"markdown bold label", "**Answer:** Paris", "Paris", true},
		{"markdown bold label 2", "**Answer**: *Paris*", "Paris", true},
		{"markdown heading", "## Answer: Paris", "Paris", true},
		{"answer on next line", "Answer:\n\n  Paris  \n", "Paris", true},
		{"crlf", "Answer: Paris\r\n", "Paris", true},
		{"answer not at line start", "The answer: Paris", "", false},
		{"answers label is not answer", "Answers: Paris", "", false},
		{"no colon", "Answer Paris", "", false},
		{"answer only label", "Answer:", "", false},
		{"empty", "", "", false},
		{"no answer", "I do not know.", "", false},
		{"only quotes", `Finish[""]`, "", false},
		{"invalid utf8", "Finish[\xff\xfe]", "\xff\xfe", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ExtractAnswer(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ExtractAnswer(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Adversarial inputs with many empty candidates must be handled in linear
// time (a quadratic scan would take minutes here).
func TestExtractAnswerAdversarial(t *testing.T) {
	const n = 200000
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"many empty finish", strings.Repeat("Finish[]", n), "", false},
		{"many blank multi-line finish", strings.Repeat("Finish[\n..\n", n), "", false},
		{"many open brackets", "Finish[" + strings.Repeat("[", n) + "\n", strings.Repeat("[", n), true},
		{"many finish no bracket", strings.Repeat("finish ", n), "", false},
		{"many empty answers", strings.Repeat("Answer:\n\n", n), "", false},
		{"many quote-only answers", strings.Repeat("Answer:\n''\n", n), "", false},
		{"long quote nest", "Answer: " + strings.Repeat(`"'`, n) + strings.Repeat(`'"`, n) + "x", strings.Repeat(`"'`, n) + strings.Repeat(`'"`, n) + "x", true},
		{"long symmetric quote nest", "Finish[" + strings.Repeat(`"'`, n) + "x" + strings.Repeat(`'"`, n) + "]", "x", true},
		{"long answer", "Answer: " + strings.Repeat("word ", n), strings.TrimSpace(strings.Repeat("word ", n)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ExtractAnswer(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %.40q (len %d), %v; want %.40q (len %d), %v", got, len(got), ok, tt.want, len(tt.want), tt.ok)
			}
		})
	}
}

func FuzzExtractAnswer(f *testing.F) {
	for _, s := range []string{
		"", "Finish[Paris]", "finish[", "Finish[\n", "Finish[]", "Answer:", "Answer:\n", "**Answer:** x",
		"Finish[a [b] c", "Finish[\"'\"]", "Answer: “x”.", "\xffFinish[\xfe", "Action 2: Finish[yes]\nAnswer: no",
		"FINISH [ [ ] ]]]", "answer:*", "Finish[\n\n]x]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ans, ok := ExtractAnswer(s)
		if !ok {
			if ans != "" {
				t.Fatalf("ExtractAnswer(%q) = %q with ok=false", s, ans)
			}
			return
		}
		if ans == "" || ans != strings.TrimSpace(ans) {
			t.Fatalf("ExtractAnswer(%q) = %q: empty or untrimmed", s, ans)
		}
		if !strings.Contains(s, ans) {
			t.Fatalf("ExtractAnswer(%q) = %q: not a substring", s, ans)
		}
		if cleanAnswer(ans) != ans {
			t.Fatalf("ExtractAnswer(%q) = %q: trimming not at a fixed point", s, ans)
		}
	})
}
