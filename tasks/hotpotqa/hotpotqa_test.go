package hotpotqa

import (
	"strings"
	"testing"
)

func TestQuestions(t *testing.T) {
	qs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 100 {
		t.Fatalf("got %d questions, want 100", len(qs))
	}
	types := map[string]int{}
	ids := map[string]bool{}
	for i, q := range qs {
		if q.Index != i {
			t.Errorf("row %d: Index = %d", i, q.Index)
		}
		if len(q.ID) != 24 || ids[q.ID] {
			t.Errorf("row %d: bad or duplicate ID %q", i, q.ID)
		}
		ids[q.ID] = true
		if q.Question == "" || q.Answer == "" || q.Level != "hard" {
			t.Errorf("row %d: question %q answer %q level %q", i, q.Question, q.Answer, q.Level)
		}
		types[q.Type]++
		if len(q.Context) != 10 {
			t.Errorf("row %d: %d paragraphs, want 10", i, len(q.Context))
		}
		byTitle := map[string]Paragraph{}
		for _, p := range q.Context {
			if p.Title == "" || len(p.Sentences) == 0 {
				t.Errorf("row %d: empty paragraph %q", i, p.Title)
			}
			byTitle[p.Title] = p
		}
		if len(q.SupportingFacts) == 0 {
			t.Errorf("row %d: no supporting facts", i)
		}
		for _, sf := range q.SupportingFacts {
			p, ok := byTitle[sf.Title]
			if !ok {
				t.Errorf("row %d: supporting fact title %q not in context", i, sf.Title)
				continue
			}
			if sf.Sentence < 0 || sf.Sentence >= len(p.Sentences) {
				t.Errorf("row %d: supporting fact %v out of range (%d sentences)", i, sf, len(p.Sentences))
			}
		}
		gold := q.Gold()
		if len(gold) == 0 {
			t.Errorf("row %d: Gold() empty", i)
		}
		// Gold is in context order and covers exactly the supporting titles.
		pos := -1
		for _, g := range gold {
			k := indexOfTitle(q.Context, g.Title)
			if k <= pos {
				t.Errorf("row %d: Gold() not in context order", i)
			}
			pos = k
		}
		want := map[string]bool{}
		for _, sf := range q.SupportingFacts {
			want[sf.Title] = true
		}
		if len(gold) != len(want) {
			t.Errorf("row %d: Gold() has %d paragraphs, want %d", i, len(gold), len(want))
		}
	}
	if types["bridge"] != 85 || types["comparison"] != 15 {
		t.Errorf("types = %v, want 85 bridge / 15 comparison", types)
	}

	q := qs[0]
	if q.ID != "5a7613c15542994ccc9186bf" || q.Answer != "Gesellschaft mit beschränkter Haftung" || q.Type != "bridge" {
		t.Errorf("row 0 = %q %q %q", q.ID, q.Answer, q.Type)
	}
	if q.Question != "VIVA Media AG changed it's name in 2004. What does their new acronym stand for?" {
		t.Errorf("row 0 question = %q", q.Question)
	}
	if len(q.SupportingFacts) != 2 || q.SupportingFacts[0] != (SupportingFact{"VIVA Media", 0}) ||
		q.SupportingFacts[1] != (SupportingFact{"Gesellschaft mit beschränkter Haftung", 0}) {
		t.Errorf("row 0 supporting facts = %v", q.SupportingFacts)
	}
	gold := q.Gold()
	if len(gold) != 2 {
		t.Fatalf("row 0 gold = %v", gold)
	}
	// Sentences keep their leading spaces; Text joins them with "".
	if p := q.Context[1]; p.Title != "VIVA Poland" || p.Sentences[1] != " is a Polish 24h music and entertainment channel from Viacom International Media Networks Polska." ||
		p.Text() != `VIVA Polska (earlier "VIVApolska!") is a Polish 24h music and entertainment channel from Viacom International Media Networks Polska. The channel was officially launched on June 10, 2000 by the German VIVA Media AG.` {
		t.Errorf("row 0 context[1] = %#v, text %q", p, p.Text())
	}
}

func indexOfTitle(ps []Paragraph, title string) int {
	for i, p := range ps {
		if p.Title == title {
			return i
		}
	}
	return -1
}

func TestQuestionsReturnsCopies(t *testing.T) {
	a, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	orig := a[0].Context[0].Sentences[0]
	a[0].Context[0].Sentences[0] = "mutated"
	a[0].SupportingFacts[0].Title = "mutated"
	a[0].Answer = "mutated"
	b, _ := Questions()
	if b[0].Context[0].Sentences[0] != orig || b[0].SupportingFacts[0].Title == "mutated" || b[0].Answer == "mutated" {
		t.Error("Questions() shares state between calls")
	}
}

func TestGold(t *testing.T) {
	q := Question{
		SupportingFacts: []SupportingFact{{"C", 0}, {"A", 1}, {"C", 2}, {"Missing", 0}},
		Context:         []Paragraph{{Title: "A"}, {Title: "B"}, {Title: "C"}},
	}
	var titles []string
	for _, p := range q.Gold() {
		titles = append(titles, p.Title)
	}
	if got := strings.Join(titles, ","); got != "A,C" {
		t.Errorf("Gold() titles = %s, want A,C", got)
	}
	if g := (Question{}).Gold(); len(g) != 0 {
		t.Errorf("empty question Gold() = %v", g)
	}
}

func TestParseJSONLErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"bad json", "{"},
		{"supporting fact shape", `{"supporting_facts": [["a"]]}`},
		{"supporting fact index type", `{"supporting_facts": [["a", "x"]]}`},
		{"context shape", `{"context": [["a", ["s"], 3]]}`},
		{"context sentences type", `{"context": [["a", "s"]]}`},
	}
	for _, tt := range tests {
		if _, err := parseJSONL([]byte(tt.in)); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	qs, err := parseJSONL([]byte("\n" + `{"id": "x", "supporting_facts": [["T", 1]], "context": [["T", ["a", " b"]]]}` + "\n\n"))
	if err != nil || len(qs) != 1 || qs[0].Context[0].Text() != "a b" || qs[0].SupportingFacts[0].Sentence != 1 {
		t.Errorf("parseJSONL = %+v, %v", qs, err)
	}
}

// The gold answers score perfectly against themselves and survive a
// round trip through ExtractAnswer.
func TestGoldAnswersRoundTrip(t *testing.T) {
	qs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if f1, _, _ := F1(q.Answer, q.Answer); f1 != 1 || !ExactMatch(q.Answer, q.Answer) {
			t.Errorf("%s: gold %q does not match itself", q.ID, q.Answer)
		}
		for _, out := range []string{"Action 3: Finish[" + q.Answer + "]", "Thought: ...\nAnswer: " + q.Answer + "\n"} {
			got, ok := ExtractAnswer(out)
			if !ok || !ExactMatch(got, q.Answer) {
				t.Errorf("%s: ExtractAnswer(%q) = %q, %v", q.ID, out, got, ok)
			}
		}
	}
}
