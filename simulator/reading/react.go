package reading

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// MarkerLastStep is what the react strategy says on the last step.
const MarkerLastStep = "last step"

// Turn is what a ReAct policy reads from a trajectory so far.
type Turn struct {
	Reading Reading // the question; Passages: the sentences observed so far
	Steps   []Step
	Listed  []string // page titles the prompt, the tools or a failed search listed
	Last    bool     // the prompt says this is the last step
}

// Searches counts the searches made so far.
func (t Turn) Searches() int {
	n := 0
	for _, s := range t.Steps {
		if s.Action == "search" {
			n++
		}
	}
	return n
}

// Searched tells whether query was searched already (normalised).
func (t Turn) Searched(query string) bool {
	for _, s := range t.Steps {
		if s.Action == "search" && SameText(s.Input, query) {
			return true
		}
	}
	return false
}

// ReadChat reads a ReAct conversation: the question from the first user
// turn, the steps from the assistant turns and the observations after
// them, the pages listed in the first turn or the tools' descriptions
// ("(the pages are: A; B)") and in failed searches.
func ReadChat(p sim.Prompt) (Turn, bool) {
	first, rest := -1, p.Messages
	for i, m := range p.Messages {
		if m.Role == "user" {
			first, rest = i, p.Messages[i+1:]
			break
		}
	}
	if first < 0 {
		return Turn{}, false
	}
	q, choices, ok := ReadQuestion(p.Messages[first].Content)
	if !ok {
		return Turn{}, false
	}
	t := Turn{Reading: Reading{Question: q, Choices: choices}, Steps: StepsFromChat(rest)}
	desc := p.Messages[first].Content
	for _, tool := range p.Tools {
		desc += "\n" + tool.Description
	}
	if _, list, ok := strings.Cut(desc, "(the pages are: "); ok {
		list, _, _ = strings.Cut(list, ")")
		for _, title := range strings.Split(list, "; ") {
			if title = strings.TrimSpace(title); title != "" && !strings.HasPrefix(title, "and ") {
				t.Listed = append(t.Listed, title)
			}
		}
	}
	t.finish(strings.Contains(strings.ToLower(p.Last("user")), MarkerLastStep))
	return t, true
}

// ReadScratchpad reads a trajectory written as text (the Reflexion
// reference's scratchpad, a LATS trajectory): the question of text and
// the steps after it.
func ReadScratchpad(text string) (Turn, bool) {
	q, choices, ok := ReadQuestion(text)
	if !ok {
		return Turn{}, false
	}
	_, pad, _ := strings.Cut(text[strings.LastIndex(text, "Question: "):], "\n")
	t := Turn{Reading: Reading{Question: q, Choices: choices}, Steps: StepsFromText(pad)}
	t.finish(false)
	return t, true
}

func (t *Turn) finish(last bool) {
	t.Last = last
	t.Reading.Passages = Observed(t.Steps)
	for _, s := range t.Steps {
		for _, title := range Similar(s.Observation) {
			if !ContainsText(t.Listed, title) {
				t.Listed = append(t.Listed, title)
			}
		}
	}
}

// StepsFromChat reads the steps of a conversation after its first user
// turn: an action from each assistant turn (text "Action: Search[x]", a
// JSON object, XML tags, or a tool call), the observation from the user or
// tool turns that follow.
func StepsFromChat(msgs []llm.Message) []Step {
	var out []Step
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			for _, tc := range m.ToolCalls {
				out = append(out, Step{Action: strings.ToLower(tc.Name), Input: jsonInput(tc.Arguments)})
			}
			if len(m.ToolCalls) == 0 {
				out = append(out, parseAction(m.Content))
			}
		case "user", "tool":
			obs := strings.TrimSpace(m.Content)
			if i := strings.Index(obs, "\n\nThis is the "+MarkerLastStep); i >= 0 {
				obs = obs[:i]
			}
			obs = strings.TrimSpace(strings.TrimPrefix(obs, "Observation:"))
			if len(out) == 0 || out[len(out)-1].Observation != "" {
				if m.Role == "user" && !strings.HasPrefix(strings.TrimSpace(m.Content), "Observation") {
					continue // an instruction, not an observation
				}
				out = append(out, Step{})
			}
			out[len(out)-1].Observation = obs
		}
	}
	return out
}

var (
	actionLine = regexp.MustCompile(`^Action(?: \d+)?: *(.*)$`)
	obsLine    = regexp.MustCompile(`^Observation(?: \d+)?: *(.*)$`)
	bracketed  = regexp.MustCompile(`^([A-Za-z_]+)\[(.*)\]$`)
)

// StepsFromText reads "Action[ n]: ..." and "Observation[ n]: ..." lines.
func StepsFromText(text string) []Step {
	var out []Step
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := actionLine.FindStringSubmatch(line); m != nil {
			out = append(out, parseCall(m[1]))
		} else if m := obsLine.FindStringSubmatch(line); m != nil {
			if len(out) == 0 || out[len(out)-1].Observation != "" {
				out = append(out, Step{})
			}
			out[len(out)-1].Observation = m[1]
		}
	}
	return out
}

// parseAction reads the action of an assistant turn: an "Action:" line, a
// JSON object {"action", "input"}, or a call written as XML tags (its first
// parameter the input).
func parseAction(content string) Step {
	content = strings.TrimSpace(content)
	if strings.HasPrefix(content, "<") {
		if name, args, ok := sim.ReadXMLCall(content); ok {
			st := Step{Action: strings.ToLower(name)}
			if len(args) > 0 {
				st.Input = args[0][1]
			}
			return st
		}
		return Step{}
	}
	if strings.HasPrefix(content, "{") {
		var obj struct {
			Action string          `json:"action"`
			Input  json.RawMessage `json:"input"`
		}
		if json.Unmarshal([]byte(content), &obj) == nil {
			return Step{Action: strings.ToLower(obj.Action), Input: jsonInput(string(obj.Input))}
		}
		return Step{}
	}
	for _, line := range strings.Split(content, "\n") {
		if m := actionLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			return parseCall(m[1])
		}
	}
	return Step{}
}

// parseCall reads "Search[x]" or "search {"entity": "x"}".
func parseCall(call string) Step {
	call = strings.TrimSpace(call)
	if m := bracketed.FindStringSubmatch(call); m != nil {
		return Step{Action: strings.ToLower(m[1]), Input: m[2]}
	}
	if name, args, ok := strings.Cut(call, " "); ok && strings.HasPrefix(strings.TrimSpace(args), "{") {
		return Step{Action: strings.ToLower(name), Input: jsonInput(args)}
	}
	return Step{}
}

// jsonInput is a tool call's one argument: a JSON string, or the first
// string value of an object.
func jsonInput(raw string) string {
	var s string
	if json.Unmarshal([]byte(raw), &s) == nil {
		return s
	}
	var obj map[string]any
	if json.Unmarshal([]byte(raw), &obj) == nil {
		for _, k := range []string{"entity", "keyword", "answer", "query", "input"} {
			if v, ok := obj[k].(string); ok {
				return v
			}
		}
	}
	return ""
}

// Enough tells whether a belief formed from what was read is grounded
// enough to answer: its evidence covers two thirds of the question's words
// and, without lettered choices, the considered answer is of the kind the
// question asks for (a number for "when", "what year", "how many").
func Enough(r Reading, b Belief) bool {
	if len(b.Evidence) == 0 || 3*b.Support < 2 {
		return false
	}
	return len(r.Choices) > 0 || hasDigit(b.Answers[0]) == wantsNumber(r.Question)
}

// Finish decides whether a ReAct policy answers now, and with what: at the
// last step, when what it observed is Enough, after maxSearches searches,
// or when it has nothing left to search (exhausted). Short of Enough, it
// answers with half its skill (nothing it read says the answer).
func Finish(th Thinker, t Turn, maxSearches int, exhausted bool, rng *rand.Rand, params sim.Params, avoid func(string) bool) (ans, thought string, done bool) {
	b := th.Consider(t.Reading)
	enough := Enough(t.Reading, b)
	if !t.Last && !enough && !exhausted && t.Searches() < maxSearches {
		return "", "", false
	}
	skill := params.Skill
	if !enough {
		skill *= 0.5
	}
	ans = "unknown"
	if len(t.Reading.Passages) > 0 || len(t.Reading.Choices) > 0 {
		ans, _ = Choose(b, rng, params, skill, t.Reading.Question, avoid)
	}
	if enough {
		return ans, "What I have read answers the question: " + ans + ".", true
	}
	return ans, "I have to answer now. My best guess is " + ans + ".", true
}

// FirstUser is the content of the prompt's first user message.
func FirstUser(p sim.Prompt) string {
	for _, m := range p.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}
