package qa

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
)

// Step-by-step solutions for bon, beam and dvts (prompts/gsm8k/steps.txt):
// the model writes the rest of a word problem's solution from the partial
// one in the request, one calculation (or one remark that a quantity does
// not matter) per blank-line separated step, then the answer as
// \boxed{N}; the server's stop at "\n\n" leaves one step. Steps are
// chosen as in a CoT chain (math.go's pick: the most plausible option with
// probability Skill); a step's arithmetic is off by one with probability
// Slip / (steps of the chain), so a whole chain slips about as often as a
// CoT answer does. The partial solution is read back as written (its last
// "= c" is the running result; one step per quantity), right or wrong.
const (
	markerSteps   = "Separate the steps with a blank line"
	headerSteps   = "Solution:"
	markerBoxed   = `\boxed`
	finalStepText = "The answer is \\boxed{%s}."
)

// respondSteps answers a steps prompt; ok is false for other prompts.
func respondSteps(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	prompt, partial, ok := sim.Continuation(p, headerSteps)
	if !ok || !strings.Contains(prompt, markerSteps) {
		return llm.Choice{}, false
	}
	r, ok := readPrompt(prompt)
	if !ok {
		return llm.Choice{}, false
	}
	if strings.Contains(partial, markerBoxed) { // already answered: the model ends
		return llm.Choice{Content: ""}, true
	}
	written := sim.Steps(partial)
	if !arithmetic(r) || len(r.Choices) > 0 {
		b := thinker{}.Consider(r)
		ans, _ := reading.Choose(b, rng, params, params.Skill, r.Question, nil)
		return llm.Choice{Content: fmt.Sprintf(finalStepText, ans)}, true
	}
	m, _ := readProblem(r.Question)
	v := running(written)
	if v == nil {
		v = m.qs[0].val
	}
	var out []string
	for i := len(written); i < len(m.options); i++ {
		o := m.pick(i, rng, params.Skill, params.Focus, r.Question)
		next, ok := apply(v, o, m.qs[i+1].val)
		if o == opSkip || !ok {
			out = append(out, fmt.Sprintf("The %s does not matter here.", m.qs[i+1].text))
			continue
		}
		if rng.Float64() < params.Slip/float64(len(m.options)) {
			next = new(big.Rat).Add(next, big.NewRat(int64(1-2*rng.IntN(2)), 1))
		}
		out = append(out, writeSteps([]chainStep{{before: v, op: o, q: m.qs[i+1], after: next}})[0])
		v = next
	}
	out = append(out, fmt.Sprintf(finalStepText, formatRat(v)))
	return llm.Choice{Content: strings.Join(out, "\n\n")}, true
}
