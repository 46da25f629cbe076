package reading

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestReadQuestion(t *testing.T) {
	for _, tc := range []struct {
		text, q string
		choices []string
	}{
		{"Question: a?\nAnswer: x\n\nQuestion: Which?\nA. red\nB. blue", "Which?", []string{"red", "blue"}},
		{"Question: How many?\nReasoning so far:\n(none)", "How many?", nil},
		{"intro\nQuestion: Two\nlines?\n\nPassages:", "Two lines?", nil},
		{"Question: A. B.\nA. x\nC. y", "A. B.", []string{"x"}},
		{"Question: Who?\nTrial:\nThought: t", "Who?", nil},
		{"Question: Who?\nThought 1: t\nAction 1: Search[x]", "Who?", nil},
	} {
		q, ch, ok := ReadQuestion(tc.text)
		if !ok || q != tc.q || strings.Join(ch, "|") != strings.Join(tc.choices, "|") {
			t.Errorf("ReadQuestion(%q) = %q %q %v", tc.text, q, ch, ok)
		}
	}
	if _, _, ok := ReadQuestion("no question here"); ok {
		t.Error("found a question in text without one")
	}
}

func TestReadPassages(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Sentence
	}{
		{"hotpotqa context: a titled paragraph a line, the few-shot ones skipped",
			"Intro.\nContext:\nOld: An example.\nQuestion: q1?\nAnswer: x\n\nContext:\nAnna Berg: Anna was a clockmaker. She lived in Lindau.\nLindau: Lindau is a town.\n\nQuestion: Where?",
			[]Sentence{{"Anna Berg", "Anna was a clockmaker.", "Anna was a clockmaker."}, {"Anna Berg", "Anna was a clockmaker.", "She lived in Lindau."},
				{"Lindau", "Lindau is a town.", "Lindau is a town."}}},
		{"qa passages: blank lines between, attempts after",
			"Task.\n\nPassages:\nFirst para. Second sentence.\n\nT: titled one.\n\nAttempt 1:\nAnswer: z\n\nQuestion: Which?",
			[]Sentence{{"", "First para.", "First para."}, {"", "First para.", "Second sentence."}, {"T", "titled one.", "titled one."}}},
		{"the reference's relevant context",
			"Relevant Context: One fact. Two facts.\n\nAnother paragraph.\nQuestion: Why?\nThought:",
			[]Sentence{{"", "One fact.", "One fact."}, {"", "One fact.", "Two facts."}, {"", "Another paragraph.", "Another paragraph."}}},
		{"closed book", "Intro\nQuestion: Who?", nil},
	} {
		if got := ReadPassages(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestNamesAndSpans(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"The Beatles were formed in Liverpool in 1960.", []string{"Beatles", "Liverpool", "1960"}},
		{"Creed disbanded on 2 March 2004, said Scott Stapp.", []string{"Creed", "2 March 2004", "Scott Stapp"}},
		{"He studied at the University of Idaho and Yale.", []string{"University of Idaho", "Yale"}},
		{`Which movie was filmed first "The Guest" or "You're Next"?`, []string{"The Guest", "You're Next"}},
	} {
		if got := names(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("names(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if got := Spans("Anna Berg opened a shop in Lindau in 1902.", "Where did Anna Berg open a shop?"); !reflect.DeepEqual(got, []string{"Lindau", "1902"}) {
		t.Errorf("Spans: %q", got)
	}
	if got := Names(`Who wrote "Wallace and Gromit" with Nick Park?`); !reflect.DeepEqual(got, []string{"Wallace and Gromit", "Wallace", "Gromit", "Nick Park"}) {
		t.Errorf("Names: %q", got)
	}
}

func TestAlternatives(t *testing.T) {
	for q, want := range map[string][]string{
		"Which restaurant chain's headquarters is further north, Pizza Inn or Papa Gino's?": {"Pizza Inn", "Papa Gino's"},
		`Which movie was filmed first "The Guest" or "You're Next"?`:                        {"The Guest", "You're Next"},
		"Is Velvetpark or Shape magazine written more for women?":                           {"Velvetpark", "Shape"},
		"Who won, or did nobody?":   nil,
		"Where was Anna Berg born?": nil,
	} {
		if got := Alternatives(q); !reflect.DeepEqual(got, want) {
			t.Errorf("Alternatives(%q) = %q, want %q", q, got, want)
		}
	}
}

func readAll(text string) Reading {
	q, choices, _ := ReadQuestion(text)
	return Reading{Question: q, Choices: choices, Passages: ReadPassages(text)}
}

func TestConsider(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"two hops",
			"Read.\nContext:\nAnna Berg: Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902.\nLindau: Lindau is a small town on the river Amper.\n\nQuestion: Which river flows through the town where Anna Berg opened her shop?",
			"Amper"},
		{"a year wanted",
			"Read.\nContext:\nCreed (band): Creed released an album in 2001 and disbanded in 2004.\n\nQuestion: In what year did Creed disband?",
			"2004"},
		{"the earlier of two",
			"Read.\nContext:\nHarvard University: Harvard was founded in 1636.\nYale University: Yale was founded in 1701.\n\nQuestion: Which was founded first, Yale University or Harvard University?",
			"Harvard University"},
		{"both, yes",
			"Read.\nContext:\nAda Stone: Ada Stone is an American film director.\nBo Lind: Bo Lind is an American film director and writer.\n\nQuestion: Are Ada Stone and Bo Lind both film directors?",
			"yes"},
		{"both, no",
			"Read.\nContext:\nAda Stone: Ada Stone is an American film director.\nBo Lind: Bo Lind is a Swedish chemist.\n\nQuestion: Are Ada Stone and Bo Lind both film directors?",
			"no"},
		{"closed book guesses among the question's names", "Read.\nQuestion: Was Ada Stone or Bo Lind born first?", ""},
	} {
		r := readAll(tc.text)
		b := Consider(r)
		if tc.want == "" {
			if !ContainsText([]string{"Ada Stone", "Bo Lind"}, b.Answers[0]) || len(b.Evidence) != 0 || b.Support != 0 {
				t.Errorf("%s: %+v", tc.name, b)
			}
			continue
		}
		if b.Answers[0] != tc.want || len(b.Lines) == 0 || len(b.Evidence) == 0 {
			t.Errorf("%s: believes %q (%+v), want %q", tc.name, b.Answers[0], b, tc.want)
		}
	}
}

func TestChoose(t *testing.T) {
	b := Belief{Answers: []string{"x", "y", "z"}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		if ans, ok := Choose(b, rng, sim.Params{}, 1, "t", nil); ans != "x" || !ok {
			t.Fatalf("skill 1, no slips: %q %v", ans, ok)
		}
		if ans, ok := Choose(b, rng, sim.Params{Focus: 2}, 0, "t", nil); ans == "x" || ok {
			t.Fatalf("skill 0: %q %v", ans, ok)
		}
		if ans, _ := Choose(b, rng, sim.Params{}, 1, "t", Avoid([]string{"X"}, SameText)); ans == "x" {
			t.Fatalf("gave the rejected answer")
		}
	}
	if ans, ok := Choose(Belief{}, rng, sim.Params{}, 1, "t", nil); ans != "unknown" || ok {
		t.Errorf("empty belief: %q %v", ans, ok)
	}
}

func TestLearning(t *testing.T) {
	refl := Reflection(`the "best" one`)
	p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Reflections:\n- " + refl + "\n- " + Reflection("Paris")}}}
	if got := Rejected(p); !reflect.DeepEqual(got, []string{"the 'best' one", "Paris"}) {
		t.Errorf("Rejected: %q", got)
	}
	if !strings.HasPrefix(Reflection("(none)"), sim.NamedFailure) || strings.Contains(Reflection("(none)"), AnsweredMarker) {
		t.Errorf("no-answer reflection: %q", Reflection("(none)"))
	}
	text := "Judge.\nContext:\nLindau: Lindau is a town on the Amper.\n\nQuestion: Which river runs through Lindau?\nTrial:\nAnswer: %s\nProposed answer: %s"
	rng := rand.New(rand.NewPCG(1, 1))
	for ans, want := range map[string]string{"Amper": "Judgement: correct", "Isar": "Judgement: incorrect", "(none)": "Judgement: incorrect"} {
		if got := SelfEval(Plain{}, strings.ReplaceAll(text, "%s", ans), rng, sim.Params{}); !strings.HasSuffix(got, want) {
			t.Errorf("self-evaluation of %q: %q", ans, got)
		}
	}
	fb := Feedback(Plain{}, strings.ReplaceAll(text, "%s", "Isar"), rng, sim.Params{})
	if !strings.Contains(fb, sim.NamedFailure) || !strings.Contains(fb, AnsweredMarker+`Isar"`) || LineAfter(fb, "Score:") == "" {
		t.Errorf("feedback: %q", fb)
	}
}

func TestSteps(t *testing.T) {
	chat := []llm.Message{
		{Role: "assistant", Content: "Thought: t\nAction: Search[Anna Berg]"},
		{Role: "user", Content: "Observation: Could not find Anna Berg. Similar: ['Anna Berg (clockmaker)', \"O'Hara\"]."},
		{Role: "assistant", Content: `{"thought": "t", "action": "search", "input": "Anna Berg (clockmaker)"}`},
		{Role: "user", Content: "Observation: Anna Berg was a clockmaker.\n\nThis is the last step: answer now."},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{Name: "lookup", Arguments: `{"keyword": "shop"}`}}},
		{Role: "tool", Content: "(Result 1 / 1) She opened a shop in Lindau."},
		{Role: "assistant", Content: "garbage"},
		{Role: "user", Content: "Observation: Invalid action."},
		{Role: "assistant", Content: "<thinking>t</thinking>\n<Search>\n<entity> Lindau </entity>\n</Search>"},
		{Role: "user", Content: "Observation: Lindau is a town."},
	}
	want := []Step{{"search", "Anna Berg", "Could not find Anna Berg. Similar: ['Anna Berg (clockmaker)', \"O'Hara\"]."},
		{"search", "Anna Berg (clockmaker)", "Anna Berg was a clockmaker."}, {"lookup", "shop", "(Result 1 / 1) She opened a shop in Lindau."},
		{"", "", "Invalid action."}, {"search", "Lindau", "Lindau is a town."}}
	steps := StepsFromChat(chat)
	if !reflect.DeepEqual(steps, want) {
		t.Fatalf("StepsFromChat:\n got %q\nwant %q", steps, want)
	}
	if got := Similar(steps[0].Observation); !reflect.DeepEqual(got, []string{"Anna Berg (clockmaker)", "O'Hara"}) {
		t.Errorf("Similar: %q", got)
	}
	obs := Observed(steps)
	if len(obs) != 3 || obs[0].Title != "Anna Berg (clockmaker)" || obs[1].Text != "She opened a shop in Lindau." || obs[1].Title != "Anna Berg (clockmaker)" ||
		obs[2].Title != "Lindau" {
		t.Errorf("Observed: %+v", obs)
	}
	pad := "Thought 1: t\nAction 1: Search[Lindau]\nObservation 1: Lindau is a town.\nAction 2: search {\"entity\": \"Amper\"}\nObservation 2: Could not find Amper."
	if got := StepsFromText(pad); !reflect.DeepEqual(got, []Step{{"search", "Lindau", "Lindau is a town."}, {"search", "Amper", "Could not find Amper."}}) {
		t.Errorf("StepsFromText: %q", got)
	}
	turn, ok := ReadScratchpad("Rate it.\nQuestion: Which town?\n" + pad)
	if !ok || turn.Reading.Question != "Which town?" || turn.Searches() != 2 || !turn.Searched("lindau") || len(turn.Reading.Passages) != 1 {
		t.Errorf("ReadScratchpad: %+v", turn)
	}
	if v := Value(turn, rand.New(rand.NewPCG(1, 1)), sim.Params{}); !strings.HasSuffix(v, "/10") {
		t.Errorf("Value: %q", v)
	}
}

func TestFinish(t *testing.T) {
	q := "Which river flows through the town where Anna Berg opened her shop?"
	turn := Turn{Reading: Reading{Question: q}}
	rng := rand.New(rand.NewPCG(1, 1))
	if _, _, done := Finish(Plain{}, turn, 3, false, rng, sim.Params{Skill: 1}, nil); done {
		t.Error("finished before reading anything")
	}
	turn.Steps = []Step{{"search", "Anna Berg", "Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902."},
		{"search", "Lindau", "Lindau is a small town on the river Amper."}}
	turn.Reading.Passages = Observed(turn.Steps)
	if ans, _, done := Finish(Plain{}, turn, 3, false, rng, sim.Params{Skill: 1}, nil); !done || ans != "Amper" {
		t.Errorf("after both pages: %q %v", ans, done)
	}
	turn.Steps, turn.Reading.Passages = nil, nil
	turn.Last = true
	if ans, _, done := Finish(Plain{}, turn, 3, false, rng, sim.Params{Skill: 1}, nil); !done || ans != "unknown" {
		t.Errorf("last step with nothing read: %q %v", ans, done)
	}
}

func FuzzReading(f *testing.F) {
	f.Add("Context:\nA: b. C d.\n\nQuestion: Is A or C first?", "Action 1: Search[x]\nObservation 1: Could not find x. Similar: ['a\\'b', \"c")
	f.Add("Relevant Context: \"\" “x\nQuestion: \"", "{\"action\": 3}")
	f.Add("Passages:\nT: \n\nQuestion: Are X and Y both 1990?\nA. x", "Observation: (Result 1 / 1)")
	f.Fuzz(func(t *testing.T, prompt, pad string) {
		text := prompt + "\n" + pad
		r := Reading{Passages: ReadPassages(text)}
		r.Question, r.Choices, _ = ReadQuestion(text)
		r.Passages = append(r.Passages, Observed(StepsFromText(text))...)
		rng := rand.New(rand.NewPCG(1, 2))
		b := Consider(r)
		if len(b.Answers) == 0 {
			t.Fatal("a belief with no answer")
		}
		if !reflect.DeepEqual(b, Consider(r)) {
			t.Fatal("two readings of one text believe different things")
		}
		for _, a := range b.Answers {
			if strings.TrimSpace(a) == "" || !utf8.ValidString(a) {
				t.Fatalf("an answer candidate %q that is empty or not UTF-8", a)
			}
		}
		ans, _ := Choose(b, rand.New(rand.NewPCG(7, 7)), sim.DefaultParams(), 0.5, r.Question, Avoid([]string{pad}, SameText))
		if again, _ := Choose(b, rand.New(rand.NewPCG(7, 7)), sim.DefaultParams(), 0.5, r.Question, Avoid([]string{pad}, SameText)); again != ans {
			t.Fatalf("the same seed chose %q and %q", ans, again)
		}
		if !slices.Contains(b.Answers, ans) {
			t.Fatalf("chose %q, not among its candidates %q", ans, b.Answers)
		}
		Choose(b, rng, sim.DefaultParams(), 0.5, r.Question, Avoid([]string{pad}, SameText))
		SampleLine(Plain{}, r, ThoughtLines(text), false, rng, sim.DefaultParams())
		if blocks := ChoiceBlocks(text); len(blocks) > 0 {
			reply := Vote(Plain{}, r, blocks, rng, sim.DefaultParams())
			var n int
			if _, err := fmt.Sscanf(reply[strings.LastIndex(reply, "The best choice is "):], "The best choice is %d", &n); err != nil || n < 1 || n > len(blocks) {
				t.Fatalf("vote %q names no choice of %d", reply, len(blocks))
			}
		}
		SelfEval(Plain{}, text, rng, sim.DefaultParams())
		Feedback(Plain{}, text, rng, sim.DefaultParams())
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}, {Role: "assistant", Content: pad}, {Role: "user", Content: "Observation: " + pad}}}
		if turn, ok := ReadChat(p); ok {
			Finish(Plain{}, turn, 3, false, rng, sim.DefaultParams(), nil)
			Value(turn, rng, sim.DefaultParams())
		}
		Rejected(p)
	})
}
