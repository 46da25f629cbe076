package hotpotqa

import (
	"math/rand/v2"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
)

// respondLearning answers the reflection, self-evaluation, feedback and
// refine prompts (recognised by the shared sim.Marker* phrases), following
// the simulator's learning model (llm/sim's learn.go, simulator/reading's
// learn.go), from the prompt alone:
//
//   - reflect: the prompt says the trial failed, so the reflection names
//     the failure (sim.NamedFailure) and quotes the final answer after
//     reading.AnsweredMarker (or says no answer was given); later answers
//     avoid the answers critiques in their prompt quote.
//   - self_eval: "Judgement: correct" iff the proposed answer is the
//     model's own considered answer from the paragraphs and observations
//     the prompt shows, flipped with probability Misjudge.
//   - feedback: judged as self_eval. Judged right: "No change needed." and
//     "Score: 10/10"; judged wrong: the failure named with the answer
//     quoted, "Score: 1..4/10".
//   - refine: a new answer written as the CoT answer is, with Skill raised
//     by Boost for each feedback in the history that named a failure
//     (sim.Boosted, applied by Respond), avoiding the answers it rejected.
func respondLearning(p sim.Prompt, rng *rand.Rand, params sim.Params, avoid func(string) bool) (llm.Choice, bool) {
	text := p.Last("user")
	kind := sim.Which(text, sim.MarkerReflect, sim.MarkerSelfEval, sim.MarkerFeedback, sim.MarkerRefine)
	if kind == "" {
		return llm.Choice{}, false
	}
	if _, _, ok := reading.ReadQuestion(text); !ok {
		return llm.Choice{}, false
	}
	switch kind {
	case sim.MarkerReflect:
		return llm.Choice{Content: reading.Reflection(reading.LineAfter(text, "Final answer:"))}, true
	case sim.MarkerSelfEval:
		return llm.Choice{Content: reading.SelfEval(reading.Plain{}, text, rng, params)}, true
	case sim.MarkerFeedback:
		return llm.Choice{Content: reading.Feedback(reading.Plain{}, text, rng, params)}, true
	}
	r, _ := readPrompt(text)
	return llm.Choice{Content: answerQA(r, true, rng, params, avoid)}, true
}
