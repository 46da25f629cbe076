package game24

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// markerPAL marks the program-aided template (game24/pal).
const markerPAL = "Write a Python program: a function solution()"

// writePAL answers game24/pal: the same play as a CoT answer (same skill,
// same slips, which the model carries on with), written as a program whose
// solution() returns the expression its steps built; the steps are its
// comments. The program does no arithmetic of its own, so it is right
// exactly when the CoT answer of the same play would be.
func (c *moveCache) writePAL(text string, rng *rand.Rand, params sim.Params) (string, bool) {
	nums, ok := lastInput(text)
	if !ok {
		return "", false
	}
	steps, expr := c.play(newBoard(game24.Rats(nums)), rng, params)
	var b strings.Builder
	b.WriteString("```python\ndef solution():\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "    # %s\n", s)
	}
	fmt.Fprintf(&b, "    return %q\n```", expr)
	return b.String(), true
}
