package crosswords

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/crosswords"
)

// TestKnowsNoTestOnlyAnswer: against the whole source file (test data
// only, never the simulator's), an answer that occurs only in test puzzles
// is not in the simulator's vocabulary, and one in other puzzles is.
func TestKnowsNoTestOnlyAnswer(t *testing.T) {
	all, err := os.ReadFile("testdata/mini0505.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw [][2][]string
	if err := json.Unmarshal(all, &raw); err != nil {
		t.Fatal(err)
	}
	in := map[string]map[bool]bool{} // word → test? → seen
	for i, r := range raw {
		b := crosswords.NewBoard()
		for k, c := range r[1] {
			b.Cells[k] = []rune(c)[0]
		}
		for c := range 10 {
			w := b.Word(c)
			if in[w] == nil {
				in[w] = map[bool]bool{}
			}
			in[w][i < 100 && i%5 == 0] = true
		}
	}
	lx := loadLexicon()
	testOnly, other := 0, 0
	for w, seen := range in {
		_, known := lx.clue[w]
		switch {
		case seen[true] && !seen[false]:
			testOnly++
			if known {
				t.Errorf("%s occurs only in test puzzles but is known", w)
			}
		case seen[false]:
			other++
			if !known {
				t.Errorf("%s occurs in a non-test puzzle but is unknown", w)
			}
		}
	}
	if testOnly == 0 || other == 0 {
		t.Fatalf("%d test-only and %d other answers", testOnly, other)
	}
}

// FuzzRespond: any text after a bundled prompt's marker gets an answer,
// never a panic.
func FuzzRespond(f *testing.F) {
	lib, err := prompts.Bundled()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(0, "h1. A clue\nv1. Another\n")
	f.Add(2, "Current Board:\nA____\n\nUnfilled:\nh2. x: _____\n")
	f.Add(3, "Dewy: r _ _ _ l")
	f.Add(3, ":")
	f.Fuzz(func(t *testing.T, kind int, body string) {
		names := []string{"io", "cot", "propose", "value"}
		text, err := lib.Render("crosswords/"+names[(kind%4+4)%4], struct{ Input string }{body})
		if err != nil {
			t.Fatal(err)
		}
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}
		if _, ok := (Responder{}).Respond(p, rand.New(rand.NewPCG(1, 2)), sim.DefaultParams()); !ok {
			t.Fatal("a bundled prompt was not recognised")
		}
	})
}
