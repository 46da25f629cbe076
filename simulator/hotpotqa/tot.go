package hotpotqa

import (
	"math/rand/v2"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// Markers of the thought-space prompts (prompts/hotpotqa/tot_sample, tot_vote).
const (
	markerToTSample = "Write the next line of the reasoning only"
	markerToTVote   = "Decide which choice is most promising"
)

// respondThoughts answers HotpotQA's thought-space prompts (simulated),
// over the ten paragraphs the prompt shows:
//
//   - sample (reading.SampleLine): the next sentence of its own evidence
//     not cited yet, "From <title>: <sentence>", with probability Skill,
//     else another uncited sentence; once its evidence is cited, or after
//     two lines (the space's third line is the answer), "Answer: x" as CoT
//     answers, with half the skill if a sentence of its evidence was never
//     cited.
//   - vote (reading.Vote): the choice agreeing most with its own reasoning
//     (its evidence cited, its considered answer given); with probability
//     Misjudge a uniformly random choice.
func respondThoughts(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	kind := sim.Which(text, markerToTSample, markerToTVote)
	if kind == "" {
		return llm.Choice{}, false
	}
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	if kind == markerToTVote {
		blocks := reading.ChoiceBlocks(text)
		if len(blocks) == 0 {
			return llm.Choice{}, false
		}
		return llm.Choice{Content: reading.Vote(reading.Plain{}, r, blocks, rng, params)}, true
	}
	lines := reading.ThoughtLines(text)
	return llm.Choice{Content: reading.SampleLine(reading.Plain{}, r, lines, len(lines) >= hotpotqa.ThoughtSteps-1, rng, params)}, true
}
