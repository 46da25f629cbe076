package crosswords

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/crosswords"
)

// TestKnowsNoTestOnlyAnswer: against the whole source file (test data
// only, never the simulator's), every clue/answer pair of the vocabulary
// occurs verbatim in a non-test puzzle (a test puzzle's pair is there only
// when a non-test puzzle has it too), every non-test pair is there, and an
// answer that occurs only in test puzzles is unknown.
func TestKnowsNoTestOnlyAnswer(t *testing.T) {
	all, err := os.ReadFile("testdata/mini0505.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw [][2][]string
	if err := json.Unmarshal(all, &raw); err != nil {
		t.Fatal(err)
	}
	type pair struct{ clue, word string }
	in := map[string]map[bool]bool{} // word → test? → seen
	nonTest, testPairs := map[pair]bool{}, map[pair]bool{}
	for i, r := range raw {
		test := i < 100 && i%5 == 0
		b := crosswords.NewBoard()
		for k, c := range r[1] {
			b.Cells[k] = []rune(c)[0]
		}
		for c := range 10 {
			w := b.Word(c)
			if in[w] == nil {
				in[w] = map[bool]bool{}
			}
			in[w][test] = true
			if test {
				testPairs[pair{r[0][c], w}] = true
			} else {
				nonTest[pair{r[0][c], w}] = true
			}
		}
	}
	var pairs [][2]string
	if err := json.Unmarshal(lexiconJSON, &pairs); err != nil {
		t.Fatal(err)
	}
	known, shared := map[pair]bool{}, 0
	for _, p := range pairs {
		k := pair{p[0], strings.ToUpper(p[1])}
		known[k] = true
		if !nonTest[k] {
			t.Errorf("vocabulary pair %q: %s occurs in no non-test puzzle", p[0], p[1])
		}
		if testPairs[k] {
			shared++
		}
	}
	for k := range nonTest {
		if !known[k] {
			t.Errorf("non-test pair %q: %s is missing from the vocabulary", k.clue, k.word)
		}
	}
	lx := loadLexicon()
	testOnly, other := 0, 0
	for w, seen := range in {
		_, knownWord := lx.clue[w]
		switch {
		case seen[true] && !seen[false]:
			testOnly++
			if knownWord {
				t.Errorf("%s occurs only in test puzzles but is known", w)
			}
		case seen[false]:
			other++
			if !knownWord {
				t.Errorf("%s occurs in a non-test puzzle but is unknown", w)
			}
		}
	}
	if testOnly == 0 || other == 0 || len(known) != len(nonTest) {
		t.Fatalf("%d test-only and %d other answers; %d pairs known of %d non-test", testOnly, other, len(known), len(nonTest))
	}
	t.Logf("%d pairs, %d of them also in a test puzzle", len(known), shared)
}

// FuzzRespond: any text after a bundled prompt's marker gets an answer the
// task reads, never a panic: every line of a proposal answer is a
// proposal, a check answer ends in a verdict, and an io/cot answer's grid
// has five rows of five cells.
func FuzzRespond(f *testing.F) {
	lib, err := prompts.Bundled()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(0, "h1. A clue\nv1. Another\n")
	f.Add(2, "Current Board:\nA____\n\nUnfilled:\nh2. x: _____\n")
	f.Add(2, "Current Board:\n_____\n\nUnfilled:\nh1. A fatty oil: _____\nh2. To entice: _____\nv1. To lisp: _____\nv2. To come in: _____\n\nFilled:\n\nChanged:\n")
	f.Add(3, "Dewy: r _ _ _ l")
	f.Add(3, ":")
	task := crosswords.NewTask()
	f.Fuzz(func(t *testing.T, kind int, body string) {
		names := []string{"io", "cot", "propose", "value"}
		name := names[(kind%4+4)%4]
		text, err := lib.Render("crosswords/"+name, struct{ Input string }{body})
		if err != nil {
			t.Fatal(err)
		}
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}
		c, ok := (Responder{}).Respond(p, rand.New(rand.NewPCG(1, 2)), sim.DefaultParams())
		if !ok {
			t.Fatal("a bundled prompt was not recognised")
		}
		switch name {
		case "propose":
			lines := strings.Count(c.Content, "\n")
			if got := len(task.Proposals(c.Content)); got != lines {
				t.Fatalf("%d of %d proposal lines read: %q", got, lines, c.Content)
			}
		case "value":
			if task.Verdict(c.Content) == "" {
				t.Fatalf("no verdict: %q", c.Content)
			}
		default:
			acts := crosswords.GridActions(c.Content)
			if len(acts) != crosswords.Size {
				t.Fatalf("%d grid rows: %q", len(acts), c.Content)
			}
			for _, a := range acts {
				if _, _, err := crosswords.ParseAction(a); err != nil {
					t.Fatalf("grid row: %v in %q", err, c.Content)
				}
			}
		}
	})
}

// TestRecallerDrawsAsRecall: a recaller's draws, its words listed and
// ranked once, are those of recall listing and ranking them afresh per
// draw from the same random numbers (propose draws three per clue).
func TestRecallerDrawsAsRecall(t *testing.T) {
	lx := loadLexicon()
	fresh := func(clue, pattern string, rng *rand.Rand, p sim.Params) (candidate, bool) {
		cs := lx.fits(clue, pattern)
		if len(cs) == 0 {
			return candidate{}, false
		}
		if rng.Float64() < p.Skill && cs[0].match > 0 {
			top := 0
			for top < len(cs) && cs[top].match == cs[0].match {
				top++
			}
			return cs[sim.PickRank(rng, p.Focus, top)], true
		}
		labels := make([]string, len(cs))
		for i, c := range cs {
			labels[i] = c.word
		}
		return cs[sim.Pick(rng, p.Focus, clue+"|"+pattern, labels)], true
	}
	clues := []string{"An agendum; something to be done", "Capital of Norway", "A heavenly body", "zzzz"}
	patterns := []string{"_____", "A____", "__E__", "S___S", "QQQQQ"}
	for seed := range uint64(40) {
		p := sim.DefaultParams()
		p.Skill = float64(seed%5) / 4
		for _, clue := range clues {
			for _, pattern := range patterns {
				a, b := rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
				recall := lx.recaller(clue, pattern)
				for draw := range 3 {
					got, gotOK := recall(a, p)
					want, wantOK := fresh(clue, pattern, b, p)
					if got != want || gotOK != wantOK {
						t.Fatalf("seed %d, %q on %s, draw %d: recaller %v %v, recall %v %v", seed, clue, pattern, draw, got, gotOK, want, wantOK)
					}
				}
			}
		}
	}
}
