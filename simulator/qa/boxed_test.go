package qa

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestBoxedResponder(t *testing.T) {
	ask := func(msgs ...llm.Message) (llm.Choice, bool) {
		return BoxedResponder{}.Respond(sim.Prompt{Messages: msgs}, rand.New(rand.NewPCG(1, 1)), sim.Params{Skill: 1, Focus: 2})
	}
	q := "Tom has 3 boxes with 4 apples in each box. How many apples does he have? Give the answer as \\boxed{answer}."
	c, ok := ask(llm.Message{Role: "user", Content: q})
	if !ok || !strings.HasSuffix(c.Content, `\boxed{12}.`) {
		t.Errorf("a boxed word problem at skill 1: %q %v", c.Content, ok)
	}
	for _, msgs := range [][]llm.Message{
		{{Role: "user", Content: "Tom has 3 boxes with 4 apples each. How many apples?"}}, // no \boxed{answer}
		{{Role: "user", Content: q}, {Role: "assistant", Content: "12"}, {Role: "user", Content: q}},
		{{Role: "system", Content: q}},
		{{Role: "user", Content: "No quantities at all, \\boxed{{answer}}."}},
	} {
		if c, ok := ask(msgs...); ok {
			t.Errorf("answered %q with %q", msgs, c.Content)
		}
	}
}
