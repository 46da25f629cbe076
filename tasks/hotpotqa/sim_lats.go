package hotpotqa

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// markerLATSValue recognises the LATS value prompt (prompts/hotpotqa/lats_value).
const markerLATSValue = "Rate how promising the trajectory"

// respondLATSValue answers the LATS value prompt for a ReAct trajectory
// (simulated). The model judges progress the way it plays ReAct: the
// fraction g of the question's supporting pages whose first sentence the
// trajectory's observations show. The score is 2 + 7·g out of 10 (rounded),
// minus two for each invalid action or "Could not find" observation
// (between 1 and 10). With
// probability Misjudge the score is instead drawn uniformly from 1..10. It
// never reads the gold answer, and a finished trajectory is scored like an
// unfinished one: whether its answer is right it cannot tell from the
// pages alone.
func respondLATSValue(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	if !strings.Contains(text, markerLATSValue) {
		return llm.Choice{}, false
	}
	q, ok := questionIn(text)
	if !ok {
		return llm.Choice{}, false
	}
	_, traj, _ := strings.Cut(text, "Question: "+q.Question)
	gold := goldTitles(q)
	found := 0
	for _, t := range gold {
		if para, ok := paragraph(q, t); ok && len(para.Sentences) > 0 && strings.Contains(traj, firstSentence(para)) {
			found++
		}
	}
	g := float64(found) / float64(max(1, len(gold)))
	score := 2 + int(7*g+0.5)
	bad := strings.Count(traj, "Invalid action") + strings.Count(traj, "Could not find")
	score -= 2 * bad
	score = min(max(score, 1), 10)
	why := fmt.Sprintf("The trajectory has found %d of the %d pages the question needs", found, len(gold))
	if bad > 0 {
		why += fmt.Sprintf(" and made %d wasted step(s)", bad)
	}
	if rng.Float64() < params.Misjudge {
		score = 1 + rng.IntN(10)
		why = "It is hard to say how far this trajectory has come"
	}
	return llm.Choice{Content: fmt.Sprintf("%s.\nScore: %d/10", why, score)}, true
}
