package hotpotqa

import (
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// Markers by which the simulator recognises the bundled prompts, as a model
// recognises an instruction. Tests check the templates contain them.
const (
	markerQA         = "Answer the multi-hop question" // io and cot
	markerCoT        = "Think step by step"            // cot
	markerReAct      = "multi-hop question"            // every react prompt
	markerReActText  = "interleaving Thought, Action and Observation"
	markerReActJSON  = "exactly one JSON object"
	markerReActTools = "gathering facts with the tools"
)

// Responder answers HotpotQA prompts for the simulated model.
//
// It reads only what the prompt shows, through simulator/reading: the question
// (the last "Question:" line), the paragraphs under "Context:" ("Title:
// text", gold and distractors alike: it cannot tell them apart), and in
// ReAct the observations its searches returned. It never looks the
// question up among the bundled ones, so it knows neither the gold answer
// nor which paragraphs hold the supporting facts, and it answers any
// question in these shapes the same, in process or through `bench
// serve-sim`.
//
// IO and CoT (markers markerQA, markerCoT): the belief of reading.Consider
// (the sentence sharing most words with the question, a second hop through
// a name it gives, the names and numbers they give that the question does
// not say; one of the two alternatives of "A or B?"; yes or no; closed
// book, a guess among the question's own names). The answer is the
// considered one with probability Skill, else another candidate by
// sim.Pick, misread into another with probability Slip (reading.Choose).
// CoT writes a Thought citing the sentences it read ("From <title>:
// <sentence>") before the Answer line.
//
// ReAct (markerReAct with markerReActText, markerReActJSON or
// markerReActTools; the tools protocol also when the request offers
// tools): each turn it searches, with probability Skill, the most useful
// title it has not searched yet — after a failed search the listed title
// closest to it, then the names the question gives, then the names its
// observations offer as a bridge — and otherwise a title a failed search
// listed or the useful one mistyped. It finishes (reading.Finish) when
// what it observed covers the question (reading.Enough), at the last step,
// after maxSearches searches or when nothing is left to search. In the
// text protocol it writes "Thought: ...\nAction: Search[...]", in the JSON
// protocol one object {"thought", "action", "input"}, in the tools
// protocol real tool calls with the thought as reasoning content, and,
// once the tools are withdrawn, "Answer: ..." in text.
//
// Reflexion and Self-Refine (reflect.go), the thought space of ToT and
// MCTS (tot.go), LATS values (lats.go) and the Reflexion reference
// agents (refagent.go) read the same way. All randomness comes from
// the rng the simulator passes in, so answers are deterministic per
// request and seed.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	// Each critique naming a failure raises Skill by Boost (llm/sim's
	// learn.go); the answers critiques rejected are avoided.
	params = sim.Boosted(p, params)
	avoid := reading.Avoid(reading.Rejected(p), reading.SameText)
	if c, ok := respondRefAgent(p, rng, params, avoid); ok { // the Reflexion reference agents, refagent.go
		return c, true
	}
	if c, ok := respondLearning(p, rng, params, avoid); ok {
		return c, true
	}
	if c, ok := respondLATSValue(p, rng, params); ok { // lats.go
		return c, true
	}
	if c, ok := respondThoughts(p, rng, params); ok { // tot.go
		return c, true
	}
	first := reading.FirstUser(p)
	if strings.Contains(first, markerReAct) && (len(p.Tools) > 0 || strings.Contains(first, markerReActText) ||
		strings.Contains(first, markerReActJSON) || strings.Contains(first, markerReActTools) || strings.Contains(first, sim.MarkerReActXML)) {
		return respondReAct(p, first, rng, params, avoid)
	}
	text := p.Last("user")
	if !strings.Contains(text, markerQA) {
		return llm.Choice{}, false
	}
	r, ok := readPrompt(text)
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: answerQA(r, strings.Contains(text, markerCoT), rng, params, avoid)}, true
}

// readPrompt reads the question and the paragraphs a prompt shows.
func readPrompt(text string) (reading.Reading, bool) {
	q, _, ok := reading.ReadQuestion(text)
	if !ok {
		return reading.Reading{}, false
	}
	return reading.Reading{Question: q, Passages: reading.ReadPassages(text)}, true
}

// answerQA writes an IO answer ("Answer: x"), or a CoT thought and answer.
func answerQA(r reading.Reading, cot bool, rng *rand.Rand, params sim.Params, avoid func(string) bool) string {
	b := reading.Consider(r)
	ans, considered := reading.Choose(b, rng, params, params.Skill, r.Question, avoid)
	if !cot {
		return "Answer: " + ans
	}
	thought := strings.Join(b.Lines, " ") + " So the answer is " + ans + "."
	if !considered {
		thought = "I think the answer is " + ans + "."
	}
	return "Thought: " + thought + "\nAnswer: " + ans
}

// maxSearches is when the ReAct policy stops searching and answers: two
// hops and a few titles guessed wrong.
const maxSearches = 5

// searchPlan lists the titles worth searching, most useful first: after a
// failed search, the listed titles sharing a word with it; the names the
// question gives; the names the observations offer (the belief's
// candidates, a bridge to the next page). Titles searched already, and
// numbers, are left out.
func searchPlan(t reading.Turn) []string {
	var plan []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !t.Searched(s) && !reading.ContainsText(plan, s) &&
			strings.IndexFunc(s, unicode.IsLetter) >= 0 {
			plan = append(plan, s)
		}
	}
	if n := len(t.Steps); n > 0 && t.Steps[n-1].Action == hotpotqa.ToolSearch {
		failed := t.Steps[n-1]
		want := reading.ContentWords(failed.Input)
		for _, title := range reading.Similar(failed.Observation) {
			if reading.Overlap(want, title) > 0 {
				add(title)
			}
		}
	}
	for _, name := range reading.Names(t.Reading.Question) {
		add(name)
	}
	if len(t.Reading.Passages) > 0 {
		for _, c := range reading.Consider(t.Reading).Answers {
			add(c)
		}
	}
	return plan
}

// nextSearch picks the title to search: the plan's first with probability
// Skill, else a title a failed search listed or the first mistyped, half
// and half.
func nextSearch(t reading.Turn, plan []string, rng *rand.Rand, params sim.Params) (query, thought string) {
	query = plan[0]
	if rng.Float64() < params.Skill {
		return query, "I need to search " + query + "."
	}
	if len(t.Listed) > 0 && rng.IntN(2) == 0 {
		query = t.Listed[rng.IntN(len(t.Listed))]
		return query, "Maybe " + query + " is relevant. I will search it."
	}
	return sim.Mistype(query, rng), "I need to search " + query + "."
}

// respondReAct plays one ReAct turn.
func respondReAct(p sim.Prompt, first string, rng *rand.Rand, params sim.Params, avoid func(string) bool) (llm.Choice, bool) {
	t, ok := reading.ReadChat(p)
	if !ok {
		return llm.Choice{}, false
	}
	proto := sim.ReActProtocol(p, first, markerReActTools, markerReActJSON)
	plan := searchPlan(t)
	if ans, thought, done := reading.Finish(reading.Plain{}, t, maxSearches, len(plan) == 0, rng, params, avoid); done {
		return sim.ReActTurn(proto, t.Last, len(t.Steps), thought, hotpotqa.ToolFinish, "answer", ans, rng), true
	}
	query, thought := nextSearch(t, plan, rng, params)
	return sim.ReActTurn(proto, t.Last, len(t.Steps), thought, hotpotqa.ToolSearch, "entity", query, rng), true
}
