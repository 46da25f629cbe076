package qa

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// reactTurn is what the ReAct policy reads from a conversation.
type reactTurn struct {
	r        reading // passages: the sentences observed so far
	proto    string  // text, json or tools
	titles   []string
	searches int // searches made so far
	last     bool
}

// maxSearches is when the policy stops searching and answers.
const maxSearches = 3

func readReActTurn(p sim.Prompt, first string) (reactTurn, bool) {
	q, choices, ok := readQuestion(first)
	if !ok {
		return reactTurn{}, false
	}
	t := reactTurn{r: reading{question: q, choices: choices}, proto: "text"}
	switch {
	case len(p.Tools) > 0 || strings.Contains(first, markerReActTools):
		t.proto = "tools"
	case strings.Contains(first, markerReActJSON):
		t.proto = "json"
	}
	desc := first
	for _, tool := range p.Tools {
		desc += "\n" + tool.Description
	}
	if _, rest, ok := strings.Cut(desc, "(the pages are: "); ok {
		list, _, _ := strings.Cut(rest, ")")
		for _, title := range strings.Split(list, "; ") {
			if title = strings.TrimSpace(title); title != "" && !strings.HasPrefix(title, "and ") {
				t.titles = append(t.titles, title)
			}
		}
	}
	seenFirst := false
	for _, m := range p.Messages {
		switch m.Role {
		case "assistant":
			low := strings.ToLower(m.Content)
			t.searches += strings.Count(low, "search[") + strings.Count(low, `"search"`)
			for _, tc := range m.ToolCalls {
				if tc.Name == hotpotqa.ToolSearch {
					t.searches++
				}
			}
		case "user", "tool":
			if m.Role == "user" && !seenFirst {
				seenFirst = true
				continue
			}
			obs := strings.TrimPrefix(strings.TrimSpace(m.Content), "Observation: ")
			t.r.passages = append(t.r.passages, sentenceList(cleanObservation(obs))...)
		}
	}
	t.last = strings.Contains(strings.ToLower(p.Last("user")), markerLastStep)
	return t, true
}

// respondReAct plays one ReAct turn.
func respondReAct(p sim.Prompt, first string, rng *rand.Rand, params sim.Params, rej []string) (llm.Choice, bool) {
	t, ok := readReActTurn(p, first)
	if !ok {
		return llm.Choice{}, false
	}
	g := relevance(t.r.question, t.r.passages)
	if t.last || g >= 1 || t.searches >= maxSearches {
		skill := params.Skill
		if g < 1 {
			skill *= 0.5 // nothing read says it
		}
		ans := "unknown"
		if len(t.r.passages) > 0 || len(t.r.choices) > 0 {
			ans, _ = choose(consider(t.r), rng, params, skill, t.r.question, rej)
		}
		thought := fmt.Sprintf("What I have read answers the question: %s.", ans)
		if g < 1 {
			thought = fmt.Sprintf("I have to answer now. My best guess is %s.", ans)
		}
		return renderTurn(t, thought, hotpotqa.ToolFinish, "answer", ans, rng), true
	}
	query := searchQuery(t)
	thought := "I need a passage about " + query + "."
	if rng.Float64() >= params.Skill {
		if len(t.titles) > 0 && rng.IntN(2) == 0 {
			query = t.titles[rng.IntN(len(t.titles))]
			thought = "Maybe " + query + " helps."
		} else {
			query = sim.Mistype(query, rng)
		}
	}
	return renderTurn(t, thought, hotpotqa.ToolSearch, "entity", query, rng), true
}

// searchQuery is the question's content words not yet seen in what was
// read, in question order (all of them for the first search).
func searchQuery(t reactTurn) string {
	seen := map[string]bool{}
	for _, s := range t.r.passages {
		for _, w := range strings.Fields(hotpotqa.Normalize(s)) {
			seen[w] = true
		}
	}
	var words, all []string
	for _, w := range strings.Fields(hotpotqa.Normalize(t.r.question)) {
		if stopword[w] {
			continue
		}
		all = append(all, w)
		if !seen[w] {
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
		return t.r.question
	}
	return strings.Join(words, " ")
}

// renderTurn writes a turn in the conversation's protocol.
func renderTurn(t reactTurn, thought, action, argName, input string, rng *rand.Rand) llm.Choice {
	return sim.ReActTurn(t.proto, t.last, t.searches, thought, action, argName, input, rng)
}
