// Package tooluser is the declared simulated tool user: the simulated
// model's answer to the agent_<protocol> templates (an agent whose tools
// come from MCP servers, prompts/qa/agent_*.txt: text, JSON, XML tags and
// native tools), from the prompt alone.
//
// Policy, per turn:
//
//   - once a tool other than finish has answered without an error, it
//     finishes with the last number in that observation, else its first
//     line;
//   - on the last step it answers the same way, or "unknown";
//   - otherwise it calls the tool whose name and description share the
//     most words with the question (with probability Skill; else another
//     tool, uniformly), its arguments filled from the question in schema
//     order: numbers for number and integer properties, quoted names for
//     string properties (the whole question when none is quoted); with
//     probability Slip a number is off by one.
//
// The tools are read from the request (native tool specs) or from the
// template's list with each tool's JSON schema (text, JSON and XML
// protocols).
package tooluser

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the agent templates; tests check the templates carry them.
const (
	MarkerAgent    = "answer a question with the tools"
	markerText     = `one line "Action: Tool[arguments]"`
	markerJSON     = "exactly one JSON object"
	markerLastStep = "last step"
)

// Responder answers the agent templates.
type Responder struct{}

type tool struct {
	name, desc string
	params     []param
}

type param struct{ name, typ string }

func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if len(p.Messages) == 0 || p.Messages[0].Role != "user" || !strings.Contains(p.Messages[0].Content, MarkerAgent) {
		return llm.Choice{}, false
	}
	first := p.Messages[0].Content
	proto := "text"
	switch {
	case len(p.Tools) == 0 && strings.Contains(first, sim.MarkerReActXML):
		proto = "xml"
	case len(p.Tools) > 0 || !strings.Contains(first, markerText) && !strings.Contains(first, markerJSON):
		proto = "tools"
	case strings.Contains(first, markerJSON):
		proto = "json"
	}
	question := first
	if i := strings.LastIndex(first, "Question:"); i >= 0 {
		question = strings.TrimSpace(first[i+len("Question:"):])
	}
	tools := readTools(p, first, proto)
	last := strings.Contains(p.Last("user"), markerLastStep)
	turn := 0
	for _, m := range p.Messages {
		if m.Role == "assistant" {
			turn++
		}
	}
	if obs, ok := lastObservation(p); ok || last {
		ans := "unknown"
		if ok {
			ans = answerFrom(obs)
		}
		return finish(proto, last, turn, ans, rng), true
	}
	var choices []tool
	for _, t := range tools {
		if !strings.EqualFold(t.name, "finish") {
			choices = append(choices, t)
		}
	}
	if len(choices) == 0 {
		return finish(proto, last, turn, "unknown", rng), true
	}
	best, score := 0, -1
	qw := words(question)
	for i, t := range choices {
		if s := overlap(qw, words(t.name+" "+t.desc)); s > score {
			best, score = i, s
		}
	}
	if len(choices) > 1 && rng.Float64() >= params.Skill {
		best = (best + 1 + rng.IntN(len(choices)-1)) % len(choices)
	}
	t := choices[best]
	return call(proto, turn, t, arguments(t, question, rng, params.Slip), rng), true
}

var (
	toolLine   = regexp.MustCompile(`(?m)^- (?:"([^"]+)"|([^\[\s:]+)\[[^\]]*\]): (.*)$`)
	schemaMark = regexp.MustCompile(`(?:Arguments|Input) \(JSON schema\): `)
	numberRE   = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	quotedRE   = regexp.MustCompile(`"([^"]+)"|'([^']+)'`)
)

// readTools lists the tools offered: the request's specs, else the
// template's lines.
func readTools(p sim.Prompt, first, proto string) []tool {
	var out []tool
	if len(p.Tools) > 0 {
		for _, s := range p.Tools {
			out = append(out, tool{name: s.Name, desc: s.Description, params: schemaParams(s.Parameters)})
		}
		return out
	}
	for _, m := range toolLine.FindAllStringSubmatch(first, -1) {
		name := m[1] + m[2]
		desc, schema := m[3], ""
		if loc := schemaMark.FindStringIndex(desc); loc != nil {
			desc, schema = desc[:loc[0]], desc[loc[1]:]
		}
		t := tool{name: name, desc: desc, params: schemaParams(json.RawMessage(schema))}
		if proto == "text" && len(t.params) == 0 {
			// No schema shown (a task's tool): the names in its syntax.
			if i, j := strings.Index(m[0], "["), strings.Index(m[0], "]"); i >= 0 && j > i {
				for _, n := range strings.Split(m[0][i+1:j], ",") {
					if n = strings.TrimSpace(n); n != "" {
						t.params = append(t.params, param{name: n, typ: "string"})
					}
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// schemaParams reads an object schema's properties in order.
func schemaParams(schema json.RawMessage) []param {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []param
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return out
		}
		var prop struct {
			Type any `json:"type"`
		}
		if dec.Decode(&prop) != nil {
			return out
		}
		typ, _ := prop.Type.(string)
		name, _ := k.(string)
		out = append(out, param{name: name, typ: typ})
	}
	return out
}

// lastObservation is the newest tool result, if it is not an error.
func lastObservation(p sim.Prompt) (string, bool) {
	for i := len(p.Messages) - 1; i > 0; i-- {
		m := p.Messages[i]
		switch {
		case m.Role == "tool":
			return m.Content, !isError(m.Content)
		case m.Role == "user" && strings.HasPrefix(m.Content, "Observation: "):
			obs := strings.TrimPrefix(m.Content, "Observation: ")
			if j := strings.Index(obs, "\n\n"); j >= 0 { // a notice appended
				obs = obs[:j]
			}
			return obs, !isError(obs)
		}
	}
	return "", false
}

func isError(obs string) bool {
	return strings.HasPrefix(obs, "Error") || strings.HasPrefix(obs, "Invalid") || strings.HasPrefix(obs, "Unknown tool") ||
		strings.HasPrefix(obs, "No tool was called") || strings.HasPrefix(obs, "Not run")
}

// answerFrom is the last number of an observation, else its first line.
func answerFrom(obs string) string {
	if ns := numberRE.FindAllString(obs, -1); len(ns) > 0 {
		return ns[len(ns)-1]
	}
	line, _, _ := strings.Cut(strings.TrimSpace(obs), "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	return line
}

// arguments fills a tool's parameters from the question.
func arguments(t tool, question string, rng *rand.Rand, slip float64) []any {
	nums := numberRE.FindAllString(question, -1)
	var quoted []string
	for _, m := range quotedRE.FindAllStringSubmatch(question, -1) {
		quoted = append(quoted, m[1]+m[2])
	}
	out := make([]any, len(t.params))
	for i, p := range t.params {
		switch p.typ {
		case "number", "integer":
			if len(nums) == 0 {
				out[i] = 0
				continue
			}
			x, _ := strconv.ParseFloat(nums[0], 64)
			nums = nums[1:]
			if rng.Float64() < slip {
				x++
			}
			out[i] = x
		default:
			if len(quoted) > 0 {
				out[i], quoted = quoted[0], quoted[1:]
			} else {
				out[i] = question
			}
		}
	}
	return out
}

func call(proto string, turn int, t tool, args []any, rng *rand.Rand) llm.Choice {
	thought := fmt.Sprintf("The %s tool should answer this.", t.name)
	obj := map[string]any{}
	for i, p := range t.params {
		obj[p.name] = args[i]
	}
	b, _ := json.Marshal(obj)
	switch proto {
	case "tools":
		id := fmt.Sprintf("call_%d_%04x", turn, rng.IntN(1<<16))
		return llm.Choice{Reasoning: thought, ToolCalls: []llm.ToolCall{{ID: id, Name: t.name, Arguments: string(b)}}}
	case "xml":
		kv := make([][2]string, len(t.params))
		for i, p := range t.params {
			kv[i] = [2]string{p.name, fmt.Sprint(args[i])}
		}
		return llm.Choice{Content: sim.XMLCall(thought, t.name, kv)}
	case "json":
		out, _ := json.Marshal(struct {
			Thought string          `json:"thought"`
			Action  string          `json:"action"`
			Input   json.RawMessage `json:"input"`
		}{thought, t.name, b})
		return llm.Choice{Content: string(out)}
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = fmt.Sprint(a)
	}
	return llm.Choice{Content: fmt.Sprintf("Thought: %s\nAction: %s[%s]", thought, capitalize(t.name), strings.Join(parts, ", "))}
}

func finish(proto string, last bool, turn int, ans string, rng *rand.Rand) llm.Choice {
	return sim.ReActTurn(proto, last, turn, "I have the answer.", "finish", "answer", ans, rng)
}

func capitalize(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// words are a text's lower-case words of three letters or more, a plural
// s dropped, split at anything not a letter.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 3 || stop[w] {
			continue
		}
		out[strings.TrimSuffix(w, "s")] = true
	}
	return out
}

var stop = map[string]bool{"the": true, "and": true, "what": true, "for": true, "with": true, "are": true, "this": true, "that": true, "tool": true, "returns": true}

func overlap(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}
