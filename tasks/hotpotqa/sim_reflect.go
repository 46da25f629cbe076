package hotpotqa

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// markerDocstore tells a reflection on a ReAct trial from one on CoT (the
// prompts' other markers are the shared sim.Marker* phrases).
const markerDocstore = "docstore"

// respondLearning answers the reflection, self-evaluation, feedback and
// refine prompts of a bundled question (the last "Question:" line),
// following the simulator's learning model (see llm/sim's learn.go):
//
//   - reflect: if the trial's final answer is not an exact match, the
//     reflection names the failure after sim.NamedFailure (the wrong answer
//     given, or no answer within the steps) and plans to avoid it; a trial
//     that was right gets a vague reflection naming nothing. The gold
//     answer is never written.
//   - self_eval: "Judgement: correct" iff the proposed answer is an exact
//     match, flipped with probability Misjudge.
//   - feedback: judged as self_eval. Judged right: "No change needed." and
//     "Score: 10/10". Judged wrong and really wrong: the failure named,
//     "Score: 1..4/10". Judged wrong but right: a vague doubt, "Score: 5/10".
//   - refine: a new answer written as the CoT answer is (the same
//     effective skill from the paragraphs shown), with Skill already raised
//     by Boost for each feedback in the history that named a failure
//     (sim.Boosted, applied by Respond).
func respondLearning(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	kind := sim.Which(text, sim.MarkerReflect, sim.MarkerSelfEval, sim.MarkerFeedback, sim.MarkerRefine)
	if kind == "" {
		return llm.Choice{}, false
	}
	q, ok := questionIn(text)
	if !ok {
		return llm.Choice{}, false
	}
	var out string
	switch kind {
	case sim.MarkerReflect:
		ans, _ := lineAfter(text, "Final answer:")
		out = reflectOn(q, ans, strings.Contains(text, markerDocstore))
	case sim.MarkerSelfEval:
		ans, _ := lineAfter(text, "Proposed answer:")
		if right(q, ans) != (rng.Float64() < params.Misjudge) {
			out = "The reasoning connects the facts the question needs, and the answer is what it asks for.\nJudgement: correct"
		} else {
			out = "The answer does not seem to follow from the facts the question needs.\nJudgement: incorrect"
		}
	case sim.MarkerFeedback:
		ans, _ := lineAfter(text, "Proposed answer:")
		isRight := right(q, ans)
		judged := isRight != (rng.Float64() < params.Misjudge)
		switch {
		case judged:
			out = "Each hop checks out and the answer is what the question asks for. No change needed.\nScore: 10/10"
		case !isRight:
			out = fmt.Sprintf("%s %s. Find the fact each hop needs and answer again.\nScore: %d/10",
				sim.NamedFailure, failure(ans), 1+rng.IntN(4))
		default:
			out = "I am not sure the answer is right; it may be worth checking again.\nScore: 5/10"
		}
	case sim.MarkerRefine:
		out = answerQA(q, text, rng, params)
	}
	return llm.Choice{Content: out}, true
}

// right tells whether a proposed answer ("(none)" or "" for none) is an
// exact match.
func right(q Question, ans string) bool {
	return ans != "" && ans != "(none)" && ExactMatch(ans, q.Answer)
}

// failure says what was wrong with a wrong answer, without the gold one.
func failure(ans string) string {
	if ans == "" || ans == "(none)" {
		return "no answer was given"
	}
	return fmt.Sprintf("the answer %q does not answer the question; a hop of the reasoning is wrong or missing", ans)
}

// reflectOn writes the simulated reflection on a trial whose final answer
// was ans.
func reflectOn(q Question, ans string, react bool) string {
	switch {
	case right(q, ans):
		return "I am not sure what went wrong: my answer seems to follow from what I read. Next time I will check each hop once more before answering."
	case (ans == "" || ans == "(none)") && react:
		return sim.NamedFailure + " I used up my steps without giving an answer. Next time I will search the entities the question names first, follow the pages they lead to, and finish as soon as I know the answer."
	case react:
		return fmt.Sprintf("%s I answered %q, which does not answer the question; I did not find or check every fact it needs. Next time I will search each entity the question names and confirm every hop in the pages before I finish.", sim.NamedFailure, ans)
	default:
		return fmt.Sprintf("%s %s. Next time I will find the fact each hop needs in the paragraphs and check that the answer is the kind of thing the question asks for.", sim.NamedFailure, capitalFirst(failure(ans)))
	}
}

func capitalFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// lineAfter returns the rest of the last line starting with prefix.
func lineAfter(text, prefix string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), prefix); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}
