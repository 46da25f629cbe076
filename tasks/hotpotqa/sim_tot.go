package hotpotqa

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the thought-space prompts (prompts/hotpotqa/tot_sample, tot_vote).
const (
	markerToTSample = "Write the next line of the reasoning only"
	markerToTVote   = "Decide which choice is most promising"
)

// respondThoughts answers HotpotQA's thought-space prompts (simulated):
//
//   - sample: the reasoning so far cites some of the question's supporting
//     pages ("From <title>: ..."). While a supporting page is not cited and
//     fewer than two lines are written, the next line cites the next one
//     (with its supporting sentence) with probability Skill, else a
//     distractor paragraph's first sentence. Then it answers as CoT does
//     with the paragraphs shown, with effective skill Skill × (0.5 + 0.5·g)
//     × 0.9 (distractors shown), g the fraction of supporting pages cited.
//   - vote: the choice citing the most supporting pages (the first on
//     ties); with probability Misjudge a uniformly random choice.
//
// It never reads the gold answer to judge; the sampled answer is drawn as
// every simulated answer is (chooseAnswer).
func respondThoughts(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	kind := sim.Which(text, markerToTSample, markerToTVote)
	if kind == "" {
		return llm.Choice{}, false
	}
	q, ok := questionIn(text)
	if !ok {
		return llm.Choice{}, false
	}
	_, after, _ := strings.Cut(text, "Question: "+q.Question)
	gold := goldTitles(q)
	if kind == markerToTVote {
		choices := strings.Split(after, "\nChoice ")[1:]
		if len(choices) == 0 {
			return llm.Choice{}, false
		}
		best, bestN := 0, -1
		for i, c := range choices {
			if n := citedGold(gold, c); n > bestN {
				best, bestN = i, n
			}
		}
		if rng.Float64() < params.Misjudge {
			best = rng.IntN(len(choices))
		}
		return llm.Choice{Content: fmt.Sprintf("Choice %d cites more of the facts the question needs.\nThe best choice is %d", best+1, best+1)}, true
	}
	_, so, _ := strings.Cut(after, "Reasoning so far:")
	so, _, _ = strings.Cut(so, "Next line:")
	lines := 0
	for _, l := range strings.Split(so, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "From ") {
			lines++
		}
	}
	cited := citedGold(gold, so)
	next := ""
	for _, t := range gold {
		if !strings.Contains(so, "From "+t+":") {
			next = t
			break
		}
	}
	if next != "" && lines < 2 {
		if rng.Float64() < params.Skill {
			return llm.Choice{Content: fmt.Sprintf("From %s: %s", next, supportingSentence(q, next))}, true
		}
		d := distractorTitle(q, rng)
		s := ""
		if para, ok := paragraph(q, d); ok && len(para.Sentences) > 0 {
			s = strings.TrimSpace(para.Sentences[0])
		}
		return llm.Choice{Content: fmt.Sprintf("From %s: %s", d, s)}, true
	}
	g := float64(cited) / float64(max(1, len(gold)))
	return llm.Choice{Content: "Answer: " + chooseAnswer(q, effectiveSkill(params.Skill, g)*distractorPenalty, rng, params)}, true
}

// citedGold counts the supporting pages text cites as "From <title>:".
func citedGold(gold []string, text string) int {
	n := 0
	for _, t := range gold {
		if strings.Contains(text, "From "+t+":") {
			n++
		}
	}
	return n
}
