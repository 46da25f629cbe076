package qa

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestArithResponder(t *testing.T) {
	ask := func(text string, skill float64, seed uint64) (string, bool) {
		c, ok := ArithResponder{}.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}},
			rand.New(rand.NewPCG(seed, 1)), sim.Params{Skill: skill})
		return c.Content, ok
	}
	for _, q := range []string{"What is the result of 12+15*21+0-3*27? State it last.", "Task: answer.\n\nQuestion: 12+15*21+0-3*27"} {
		if got, ok := ask(q, 1, 1); !ok || !strings.HasSuffix(got, "Answer: 246") {
			t.Errorf("%q at skill 1: %q %v", q, got, ok)
		}
		if got, _ := ask(q, 0, 1); !strings.HasSuffix(got, "Answer: 15228") { // (((12+15)*21+0)-3)*27
			t.Errorf("%q at skill 0 (left to right): %q", q, got)
		}
	}
	for _, q := range []string{
		"Question: Tom has 3 apples and 4 pears. How many fruits?", // a word problem: qa's
		"Question: 3+4", // one operation: not this task's
		"Example: 2+3*4 = 14\nQuestion: how many?", // an expression that is not the question
		"What is the result of 99999999+1*2? ",     // no question mark after it
	} {
		if got, ok := ask(q, 1, 1); ok {
			t.Errorf("answered %q with %q", q, got)
		}
	}
}
