package tau

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	reply "github.com/reasonbench/reasonbench/strategies/action"
)

// The agent's protocols (strategies/react_episode.go).
const (
	protoTools = "tools"
	protoAct   = "act"
	protoReAct = "react"
	protoXML   = "xml"
)

// respondAction is τ-bench's action that says something to the user.
const respondAction = "respond"

// event is one step of an episode as the agent reads it back.
type event struct {
	kind string // "user" (the user said text), "say" (the agent said text), "call"
	text string
	// A call's tool, arguments (as written) and result.
	tool     string
	args     obj
	result   string
	answered bool
}

// ok reports whether a call was answered without an error.
func (e event) ok() bool {
	return e.kind == "call" && e.answered && !isError(e.result)
}

func isError(result string) bool {
	return strings.HasPrefix(result, "Error") || strings.HasPrefix(result, "Unknown action")
}

// convo is an agent request read back: the episode so far.
type convo struct {
	domain string
	proto  string
	policy string
	tools  map[string]bool // the tools offered
	events []event
	turns  int // the agent's turns so far
}

// readConvo reads an agent request in any protocol.
func readConvo(p sim.Prompt, domain string) convo {
	system := p.Messages[0].Content
	c := convo{domain: domain, proto: protoTools, policy: system, tools: map[string]bool{}}
	if len(p.Tools) > 0 {
		for _, t := range p.Tools {
			c.tools[t.Name] = true
		}
	} else if i := strings.Index(system, toolsHeader); i >= 0 {
		c.policy = system[:i]
		rest := system[i+len(toolsHeader):]
		dec := json.NewDecoder(strings.NewReader(rest))
		var specs []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if dec.Decode(&specs) == nil {
			for _, s := range specs {
				c.tools[s.Function.Name+s.Name] = true
			}
		}
		instruction := rest[min(len(rest), int(dec.InputOffset())):]
		switch {
		case strings.Contains(instruction, xmlMarker):
			c.proto = protoXML
		case strings.Contains(instruction, reactMarker):
			c.proto = protoReAct
		default:
			c.proto = protoAct
		}
	}
	for _, m := range p.Messages[1:] {
		switch m.Role {
		case "user":
			if last := c.lastCall(); last != nil && c.proto != protoTools {
				if obs, ok := strings.CutPrefix(m.Content, "API output: "); ok {
					last.result, last.answered = obs, true
					continue
				}
			}
			c.events = append(c.events, event{kind: "user", text: m.Content})
		case "assistant":
			c.turns++
			c.events = append(c.events, c.readTurn(m))
		case "tool":
			if last := c.lastCall(); last != nil {
				last.result, last.answered = m.Content, true
			}
		}
	}
	return c
}

// lastCall is the last event if it is an unanswered call.
func (c *convo) lastCall() *event {
	if n := len(c.events); n > 0 && c.events[n-1].kind == "call" && !c.events[n-1].answered {
		return &c.events[n-1]
	}
	return nil
}

// readTurn reads one of the agent's earlier turns as the episode's loop
// acted on it.
func (c *convo) readTurn(m llm.Message) event {
	if c.proto == protoTools {
		if len(m.ToolCalls) > 0 {
			tc := m.ToolCalls[0]
			args, _ := parseObj([]byte(tc.Arguments))
			return event{kind: "call", tool: tc.Name, args: args}
		}
		return event{kind: "say", text: m.Content}
	}
	if c.proto == protoXML {
		// Its own calls are short; a long turn is read only so far.
		if name, args, ok := readXML(m.Content[:min(len(m.Content), maxRead)]); ok {
			return event{kind: "call", tool: name, args: args}
		}
		return event{kind: "say", text: strings.TrimSpace(m.Content)}
	}
	text := m.Content
	if i := strings.LastIndex(text, "Action:"); i >= 0 {
		text = text[i+len("Action:"):]
	}
	text = strings.TrimSpace(text)
	var act struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal([]byte(text), &act) != nil || act.Name == "" {
		return event{kind: "say", text: text}
	}
	args, _ := parseObj(act.Arguments)
	if act.Name == respondAction {
		return event{kind: "say", text: args.str("content")}
	}
	return event{kind: "call", tool: act.Name, args: args}
}

// readXML reads the agent's own xml tool call: the first element that is
// not a thought, its parameters' values (JSON for arrays and objects).
func readXML(text string) (string, obj, bool) {
	pos := 0
	for {
		name, _, inner, end, ok := reply.NextElement(text, pos)
		if !ok {
			return "", nil, false
		}
		pos = end
		if name == "thinking" {
			continue
		}
		var args obj
		for p := 0; ; {
			pn, _, value, pend, ok := reply.NextElement(inner, p)
			if !ok {
				break
			}
			value = strings.TrimSpace(value)
			raw := json.RawMessage(nil)
			if (strings.HasPrefix(value, "[") || strings.HasPrefix(value, "{")) && json.Valid([]byte(value)) {
				raw = json.RawMessage(value)
			} else {
				raw, _ = json.Marshal(value)
			}
			args = append(args, kv{pn, raw})
			p = pend
		}
		return name, args, true
	}
}

// kv is one member of an ordered JSON object; val is any JSON-encodable
// value (json.RawMessage as written).
type kv struct {
	key string
	val any
}

// obj is a JSON object with its members in order.
type obj []kv

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// text is the object's JSON text.
func (o obj) text() string {
	b, err := json.Marshal(o)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// get returns a member's value decoded (nil when absent).
func (o obj) get(key string) any {
	for _, m := range o {
		if m.key == key {
			if raw, ok := m.val.(json.RawMessage); ok {
				var v any
				json.Unmarshal(raw, &v)
				return v
			}
			b, _ := json.Marshal(m.val)
			var v any
			json.Unmarshal(b, &v)
			return v
		}
	}
	return nil
}

func (o obj) str(key string) string {
	s, _ := o.get(key).(string)
	return s
}

// parseObj reads a JSON object keeping its members' order.
func parseObj(b []byte) (obj, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out obj
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return out, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out, err
		}
		key, _ := k.(string)
		out = append(out, kv{key, v})
	}
	return out, nil
}

// action is what the agent does this turn: say text to the user, or call
// a tool.
type action struct {
	say     string
	tool    string
	args    obj
	thought string
}

// render writes the action in the conversation's protocol. In the text
// protocols a tool call comes out malformed with probability Slip/2.
func (c convo) render(a action, rng *rand.Rand, params sim.Params) llm.Choice {
	thought := a.thought
	if thought == "" {
		thought = "I should reply to the user."
		if a.tool != "" {
			thought = "I should call " + a.tool + "."
		}
	}
	malformed := a.tool != "" && c.proto != protoTools && rng.Float64() < params.Slip/2
	switch c.proto {
	case protoTools:
		if a.tool == "" {
			return llm.Choice{Content: a.say}
		}
		id := fmt.Sprintf("call_%d_%04x", c.turns+1, rng.IntN(1<<16))
		return llm.Choice{ToolCalls: []llm.ToolCall{{ID: id, Name: a.tool, Arguments: a.args.text()}}}
	case protoXML:
		if a.tool == "" {
			return llm.Choice{Content: a.say}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<thinking>%s</thinking>\n<%s>\n", thought, a.tool)
		for _, m := range a.args {
			fmt.Fprintf(&b, "<%s>%s</%s>\n", m.key, xmlValue(m.val), m.key)
		}
		if !malformed {
			fmt.Fprintf(&b, "</%s>", a.tool)
		}
		return llm.Choice{Content: strings.TrimRight(b.String(), "\n")}
	}
	name, args := a.tool, a.args
	if a.tool == "" {
		name, args = respondAction, obj{{"content", a.say}}
	}
	js := fmt.Sprintf(`{"name": %s, "arguments": %s}`, quote(name), args.text())
	if malformed {
		js = js[:len(js)-1]
	}
	if c.proto == protoReAct {
		return llm.Choice{Content: "Thought:\n" + oneLine(thought) + "\nAction:\n" + js}
	}
	return llm.Choice{Content: "Action:\n" + js}
}

// xmlValue writes a parameter's value as the xml protocol shows it: a
// string as it stands, anything else as JSON.
func xmlValue(v any) string {
	b, _ := json.Marshal(v)
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
