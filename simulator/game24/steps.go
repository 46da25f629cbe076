package game24

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// Step-by-step solutions for bon, beam and dvts (prompts/game24/steps.txt):
// the model replays the partial solution's steps as written (a slipped
// result stays wrong), plays the rest with the responder's solver (play:
// a good move with probability Skill, a slip with probability Slip), one
// move per blank-line separated step, and ends with a step "Answer: expr =
// 24"; the server's stop at "\n\n" leaves one step. A partial solution that
// already answers ends the solution (an empty continuation).
const (
	markerSteps = "Separate the steps with a blank line"
	headerSteps = "Steps:"
)

// respondSteps answers a steps prompt; ok is false for other prompts.
func (c *moveCache) respondSteps(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	prompt, partial, ok := sim.Continuation(p, headerSteps)
	if !ok || !strings.Contains(prompt, markerSteps) {
		return llm.Choice{}, false
	}
	nums, ok := lastInput(prompt)
	if !ok {
		return llm.Choice{}, false
	}
	if _, answered := game24.LastAnswerLine(partial); answered {
		return llm.Choice{Content: ""}, true
	}
	steps, expr := c.play(replay(nums, partial), rng, params)
	return llm.Choice{Content: strings.Join(append(steps, fmt.Sprintf("Answer: %s = 24", expr)), "\n\n")}, true
}
