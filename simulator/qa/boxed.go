package qa

import (
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// markerBoxedAnswer is a request for the answer "in the form \boxed{answer}", as
// the multi-agent debate reference's GSM8K prompts ask (with the format
// string's braces doubled or not).
var markerBoxedAnswer = []string{`\boxed{answer}`, `\boxed{{answer}}`}

// BoxedResponder answers a word problem asked in one user message that
// wants its answer in \boxed{}: the problem is read from the whole
// message (the instructions around it carry no quantities), worked out as
// the chain-of-thought solver does, and the answer is boxed.
type BoxedResponder struct{}

func (BoxedResponder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if len(p.Messages) != 1 || p.Messages[0].Role != "user" {
		return llm.Choice{}, false
	}
	text := p.Messages[0].Content
	if !strings.Contains(text, markerBoxedAnswer[0]) && !strings.Contains(text, markerBoxedAnswer[1]) {
		return llm.Choice{}, false
	}
	m, ok := readProblem(text)
	if !ok {
		return llm.Choice{}, false
	}
	steps, v := m.sampleChain(rng, params.Skill, params.Slip, params.Focus, text)
	lines := append(writeSteps(steps), "So the answer is \\boxed{"+formatRat(v)+"}.")
	return llm.Choice{Content: strings.Join(lines, "\n")}, true
}
