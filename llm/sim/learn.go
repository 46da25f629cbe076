package sim

import "strings"

// The simulated model's model of learning from its own critiques
// (Reflexion's reflections, Self-Refine's feedback), shared by the tasks'
// responders (simulator/). It is deliberately this small:
//
//   - A reflection or feedback written by the simulator names the failure
//     of the attempt it criticises only when it can see one, from the
//     prompt alone; it then contains NamedFailure ("What went wrong: the
//     step 4 + 8 = 13 is wrong arithmetic ..."). On the Game of 24 it
//     checks the arithmetic, so a critique of an attempt that was right (as
//     the self-evaluator may wrongly ask for) cannot name a real failure
//     and is vague. On question-answer tasks (simulator/reading) it cannot
//     check an answer against anything but its own reading: a reflection
//     is asked for after a failure, so it names one and quotes the
//     rejected answer, which later answers avoid.
//   - Every critique in a prompt that names a failure raises Skill by Boost
//     for the answer written in reply (absolute, capped at 1): a Reflexion
//     trial whose prompt shows three such reflections answers with Skill +
//     3·Boost. Nothing else changes: Slip, Misjudge and Focus stay, and a
//     previous attempt shown without a critique (Reflexion's last_attempt)
//     gives nothing.
//   - Judgements (self-evaluation, "no change needed") are right with
//     probability 1-Misjudge.

// Phrases by which every task's Reflexion and Self-Refine prompts
// (prompts/<task>/reflect, self_eval, feedback, refine) are recognised;
// the responders' tests (simulator/) check the templates contain them.
const (
	MarkerReflect  = "Diagnose a possible reason for failure"
	MarkerSelfEval = "Judge whether the proposed answer is correct"
	MarkerFeedback = "Give feedback on the proposed answer"
	MarkerRefine   = "Improve the answer using the feedback"
)

// NamedFailure begins the sentence in which a simulated reflection or
// feedback names what went wrong with an attempt. Prompt templates must not
// contain it.
const NamedFailure = "What went wrong:"

// NamedFailures counts the critiques in the prompt that name a failure.
func NamedFailures(p Prompt) int {
	n := 0
	for _, m := range p.Messages {
		if m.Role != "assistant" {
			n += strings.Count(m.Content, NamedFailure)
		}
	}
	return n
}

// Boosted returns params with Skill raised by Boost for every critique in
// the prompt that names a failure, capped at 1.
func Boosted(p Prompt, params Params) Params {
	if n := NamedFailures(p); n > 0 && params.Boost > 0 {
		params.Skill = min(1, params.Skill+params.Boost*float64(n))
	}
	return params
}
