package hotpotqa

import (
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
)

// markerLATSValue recognises the LATS value prompt (prompts/hotpotqa/lats_value).
const markerLATSValue = "Rate how promising the trajectory"

// respondLATSValue answers the LATS value prompt for a ReAct trajectory
// (simulated) with reading.Value: 2 + 7·s out of 10 for the share s of
// the question's words the trajectory's observations cover, less two for
// each failed search or invalid action (between 1 and 10); with
// probability Misjudge a uniform score. A finished trajectory is scored
// like an unfinished one: whether its answer is right the model cannot
// tell from the pages alone.
func respondLATSValue(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	if !strings.Contains(text, markerLATSValue) {
		return llm.Choice{}, false
	}
	t, ok := reading.ReadScratchpad(text)
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: reading.Value(t, rng, params)}, true
}
