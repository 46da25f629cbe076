package debate

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestKey(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"so the total is \\boxed{1,450} dollars", "1450"},
		{"first \\boxed{3} then \\boxed{$4.50}.", "4.50"},
		{"Steps\nAnswer: Copenhagen.\n", "copenhagen"},
		{"Answer: (1 + 8 / 4) * 8 = 24", "(1+8/4)*8=24"},
		{"I got 12 then -7", "-7"},
		{"no numbers here\nlast line", "lastline"},
		{"", ""},
	} {
		if got := Key(c.text); got != c.want {
			t.Errorf("Key(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestQuoted(t *testing.T) {
	got := Quoted("intro\n```\nA\n```\nmid\n```\nB\nC\n```\ntail ``` unpaired")
	if !slices.Equal(got, []string{"A", "B\nC"}) {
		t.Errorf("Quoted = %q", got)
	}
	if Quoted("none") != nil {
		t.Error("quoted text in a prompt without marks")
	}
}

func TestPlurality(t *testing.T) {
	for _, c := range []struct {
		own    string
		others []string
		want   string
	}{
		{"Answer: 5", []string{"Answer: 7", "x\nAnswer: 7"}, "Answer: 7"},
		{"Answer: 5", []string{"Answer: 7", "Answer: 8"}, "Answer: 5"},  // a tie keeps its own
		{"Answer: 5", []string{"Answer: 7", "Answer: 5."}, "Answer: 5"}, // with it
		{"Answer: 5", []string{"Answer: 7", "Answer: 7 "}, "Answer: 7"}, // the first holder's text
	} {
		if got := Plurality(c.own, c.others); got != c.want {
			t.Errorf("Plurality(%q, %q) = %q, want %q", c.own, c.others, got, c.want)
		}
	}
}

// fresh answers any prompt it is given alone with a fixed text.
type fresh struct{}

func (fresh) Respond(p sim.Prompt, _ *rand.Rand, _ sim.Params) (llm.Choice, bool) {
	if len(p.Messages) != 1 {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: "Answer: fresh"}, true
}

func TestRespondByConformity(t *testing.T) {
	conv := func(last string) sim.Prompt {
		return sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Question: q"}, {Role: "assistant", Content: "Answer: 5"},
			{Role: "user", Content: last}}}
	}
	debate := conv("Answers from other agents:\n```\nAnswer: 7\n```\n```\nAnswer: 7\n```\nAgain.")
	r := New(fresh{})
	for _, c := range []struct {
		conformity float64
		p          sim.Prompt
		want       string
		ok         bool
	}{
		{1, debate, "Answer: 7", true},
		{0, debate, "Answer: fresh", true},
		{0.5, conv("Can you double check that your answer is correct?"), "Answer: 5", true},
		{0.5, conv(markerAlone + "."), "Answer: 5", true},
		{1, conv("from other agents, but none quoted"), "", false},
		{1, sim.Prompt{Messages: debate.Messages[2:]}, "", false}, // no answer of its own
		{1, conv("Refine your answer."), "", false},
	} {
		params := sim.DefaultParams()
		params.Conformity = c.conformity
		got, ok := r.Respond(c.p, rand.New(rand.NewPCG(1, 2)), params)
		if ok != c.ok || got.Content != c.want {
			t.Errorf("conformity %v, %q: %q %v, want %q %v", c.conformity, c.p.Messages[len(c.p.Messages)-1].Content, got.Content, ok, c.want, c.ok)
		}
	}
	// Between the two, both happen.
	params := sim.DefaultParams()
	seen := map[string]bool{}
	for i := range 200 {
		got, _ := r.Respond(debate, rand.New(rand.NewPCG(uint64(i), 9)), params)
		seen[got.Content] = true
	}
	if !seen["Answer: 7"] || !seen["Answer: fresh"] {
		t.Errorf("conformity %v over 200 draws gave only %v", params.Conformity, seen)
	}
}

func TestJudge(t *testing.T) {
	prompt := markerJudge + ", quoted:\n\nRound 1:\n```\nAnswer: 7\n```\n```\nAnswer: 9\n```\n```\nAnswer: 9\n```\n" +
		"\nRound 2:\n```\nAnswer: 5\n```\n```\nAnswer: 5\n```\n```\nAnswer: 8\n```\n\nGive it on a line \"Answer:\".\n\nProblem: p"
	p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: prompt}}}
	params := sim.DefaultParams()
	counts := map[string]int{}
	r := New()
	for i := range 2000 {
		c, ok := r.Respond(p, rand.New(rand.NewPCG(uint64(i), 3)), params)
		if !ok {
			t.Fatal("the judge prompt went unanswered")
		}
		counts[c.Content]++
	}
	// The last round's majority, misjudged with probability Misjudge (0.15).
	if len(counts) != 2 || counts["Answer: 5"] < 1600 || counts["Answer: 8"] < 200 {
		t.Errorf("judgements %v, want Answer: 5 about 85%% and Answer: 8 the rest", counts)
	}
	params.Misjudge = 0
	if c, _ := r.Respond(p, rand.New(rand.NewPCG(1, 1)), params); c.Content != "Answer: 5" {
		t.Errorf("an exact judge answered %q", c.Content)
	}
	if _, ok := r.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: markerJudge + " with no rounds"}}}, rand.New(rand.NewPCG(1, 1)), params); ok {
		t.Error("answered a judge prompt without rounds")
	}
}

// Whatever the others wrote, the debater answers with its own answer, one
// of theirs, or a fresh one, and the judge with one of the last round's.
func FuzzRespond(f *testing.F) {
	f.Add("Answer: 5", "x from other agents ```\nAnswer: 7\n``` ```\n\n``` y", uint64(1))
	f.Add("", "from other agents ``````", uint64(2))
	f.Add("\\boxed{", "You are the judge of a debate\nRound 1:\n```a```", uint64(3))
	r := New(fresh{})
	f.Fuzz(func(t *testing.T, own, last string, seed uint64) {
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: own}, {Role: "user", Content: last}}}
		c, ok := r.Respond(p, rand.New(rand.NewPCG(seed, 1)), sim.DefaultParams())
		if ok && c.Content != own && c.Content != "Answer: fresh" && !slices.Contains(Quoted(last), c.Content) {
			t.Fatalf("answered %q: not its own, a fresh one or a quoted one", c.Content)
		}
		j, ok := r.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: last}}}, rand.New(rand.NewPCG(seed, 2)), sim.DefaultParams())
		if ok {
			i := strings.LastIndex(last, headerRound)
			if i < 0 || !slices.Contains(Quoted(last[i:]), j.Content) {
				t.Fatalf("the judge answered %q, not one of the last round's", j.Content)
			}
		}
	})
}
