package qa

import (
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tasks/prose"
	"github.com/reasonbench/reasonbench/tasks/squad"
)

// maxSearches is when the policy stops searching and answers.
const maxSearches = 3

// respondReAct plays one ReAct turn: reading.Finish decides whether to
// answer; else it searches the question's words not yet read (the qa
// docstore opens the page sharing most words with a query), with
// probability Skill, else a listed title or a mistyped query.
func respondReAct(p sim.Prompt, first string, rng *rand.Rand, params sim.Params, avoid func(string) bool) (llm.Choice, bool) {
	t, ok := reading.ReadChat(p)
	if !ok {
		return llm.Choice{}, false
	}
	proto := sim.ReActProtocol(p, first, markerReActTools, markerReActJSON)
	if ans, thought, done := reading.Finish(thinker{}, t, maxSearches, false, rng, params, avoid); done {
		return sim.ReActTurn(proto, t.Last, len(t.Steps), thought, hotpotqa.ToolFinish, "answer", ans, rng), true
	}
	query := searchQuery(t)
	thought := "I need a passage about " + query + "."
	if rng.Float64() >= params.Skill {
		if len(t.Listed) > 0 && rng.IntN(2) == 0 {
			query = t.Listed[rng.IntN(len(t.Listed))]
			thought = "Maybe " + query + " helps."
		} else {
			query = sim.Mistype(query, rng)
		}
	}
	return sim.ReActTurn(proto, t.Last, len(t.Steps), thought, hotpotqa.ToolSearch, "entity", query, rng), true
}

// searchQuery is the question's content words not yet seen in what was
// read, in question order (all of them for the first search), at most
// six.
func searchQuery(t reading.Turn) string {
	var read []string
	for _, s := range t.Reading.Passages {
		read = append(read, s.Text)
	}
	seen := reading.ContentWords(strings.Join(read, " "))
	var words, all []string
	for _, w := range strings.Fields(squad.Normalize(t.Reading.Question)) {
		if prose.IsStopword(w) {
			continue
		}
		all = append(all, w)
		if reading.Overlap(seen, w) == 0 {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		words = all
	}
	if len(words) > 6 {
		words = words[:6]
	}
	if len(words) == 0 {
		return t.Reading.Question
	}
	return strings.Join(words, " ")
}
