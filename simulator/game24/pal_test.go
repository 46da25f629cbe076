package game24

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

var returned = regexp.MustCompile(`(?m)^    return ("[^"\n]*")$`)

// The PAL writer plays as for CoT and returns the expression its play
// built: at skill 1 without slips, one that makes 24; with slips on every
// step, programs whose expression is mostly wrong.
func TestPALWriterReturnsItsPlay(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, _ := lib.Text("game24/pal")
	for _, m := range []string{markerPAL, markerTask} {
		if !strings.Contains(tmpl, m) {
			t.Errorf("game24/pal lacks the marker %q", m)
		}
	}
	r := NewResponder()
	solved := func(params sim.Params) int {
		n := 0
		for seed := range uint64(20) {
			text, err := lib.Render("game24/pal", struct{ Input string }{"4 5 6 10"})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := r.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}, rand.New(rand.NewPCG(seed, 1)), params)
			if !ok {
				t.Fatal("no answer")
			}
			m := returned.FindStringSubmatch(c.Content)
			if m == nil || !strings.HasPrefix(c.Content, "```python\ndef solution():\n") {
				t.Fatalf("not a program returning a string:\n%s", c.Content)
			}
			expr, _ := strconv.Unquote(m[1])
			if game24.Check([]int{4, 5, 6, 10}, "Answer: "+expr+" = 24").Correct {
				n++
			}
		}
		return n
	}
	if n := solved(sim.Params{Skill: 1, Focus: 2}); n != 20 {
		t.Errorf("skill 1: %d of 20 programs make 24", n)
	}
	if n := solved(sim.Params{Skill: 1, Slip: 1, Focus: 2}); n > 5 {
		t.Errorf("slip 1: %d of 20 programs make 24", n)
	}
}
