package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/action"
)

// MarkerReActXML is the phrase of every bundled react_xml and agent_xml
// template (tool calls as XML tags); the responders' tests check the
// templates carry it.
const MarkerReActXML = "one tool call written as XML tags"

// ReActProtocol tells which protocol a ReAct conversation uses from its
// first user turn: "tools" when tools are offered or the turn carries
// toolsMarker, "xml" when it carries MarkerReActXML, "json" when it carries
// jsonMarker, else "text".
func ReActProtocol(p Prompt, first, toolsMarker, jsonMarker string) string {
	switch {
	case len(p.Tools) > 0 || strings.Contains(first, toolsMarker):
		return "tools"
	case strings.Contains(first, MarkerReActXML):
		return "xml"
	case strings.Contains(first, jsonMarker):
		return "json"
	}
	return "text"
}

// ReActTurn writes a simulated ReAct turn in the conversation's protocol
// (the tasks' ReAct responders share it):
//
//   - "tools": a tool call of action with the JSON arguments
//     {argName: input}, id "call_<turn>_<4 hex>", and the thought as
//     reasoning content; on the last step, when the tools are withdrawn,
//     "Answer: <input>" in text;
//   - "json": one object {"thought", "action", "input"};
//   - "xml": the thought in <thinking> tags, then the call as XML tags
//     (XMLCall);
//   - otherwise text: "Thought: ...\nAction: Action[input]".
func ReActTurn(proto string, last bool, turn int, thought, action, argName, input string, rng *rand.Rand) llm.Choice {
	switch proto {
	case "xml":
		return llm.Choice{Content: XMLCall(thought, action, [][2]string{{argName, input}})}
	case "tools":
		if last {
			return llm.Choice{Reasoning: thought, Content: "Answer: " + input}
		}
		args, _ := json.Marshal(map[string]string{argName: input})
		id := fmt.Sprintf("call_%d_%04x", turn, rng.IntN(1<<16))
		return llm.Choice{Reasoning: thought, ToolCalls: []llm.ToolCall{{ID: id, Name: action, Arguments: string(args)}}}
	case "json":
		b, _ := json.Marshal(struct {
			Thought string `json:"thought"`
			Action  string `json:"action"`
			Input   string `json:"input"`
		}{thought, action, input})
		return llm.Choice{Content: string(b)}
	}
	if action != "" {
		action = strings.ToUpper(action[:1]) + action[1:]
	}
	return llm.Choice{Content: fmt.Sprintf("Thought: %s\nAction: %s[%s]", thought, action, input)}
}

// Mistype drops one letter from the middle of s (a short s gets an "s"):
// a search a model gets slightly wrong.
func Mistype(s string, rng *rand.Rand) string {
	r := []rune(s)
	if len(r) < 4 {
		return s + "s"
	}
	i := 1 + rng.IntN(len(r)-2)
	return string(r[:i]) + string(r[i+1:])
}

// XMLCall writes a tool call as the xml protocol reads it: the thought in
// <thinking> tags (none when empty), then
//
//	<action>
//	<name>value</name>
//	</action>
func XMLCall(thought, action string, args [][2]string) string {
	var b strings.Builder
	if thought != "" {
		fmt.Fprintf(&b, "<thinking>%s</thinking>\n", thought)
	}
	fmt.Fprintf(&b, "<%s>\n", action)
	for _, a := range args {
		fmt.Fprintf(&b, "<%s>%s</%s>\n", a[0], a[1], a[0])
	}
	fmt.Fprintf(&b, "</%s>", action)
	return b.String()
}

// ReadXMLCall reads back the first tool call of an xml reply (the
// simulated model reading its own earlier turns): the element's name and
// its parameters' names and values, trimmed. A <thinking> element is
// skipped. Only the first maxXMLRead bytes are read.
func ReadXMLCall(text string) (name string, args [][2]string, ok bool) {
	text = text[:min(len(text), maxXMLRead)]
	pos := 0
	for {
		n, _, inner, end, found := action.NextElement(text, pos)
		if !found {
			return "", nil, false
		}
		pos = end
		if n == "thinking" || n == "thought" {
			continue
		}
		for p := 0; ; {
			pn, _, value, pend, found := action.NextElement(inner, p)
			if !found {
				break
			}
			args = append(args, [2]string{pn, strings.TrimSpace(value)})
			p = pend
		}
		return n, args, true
	}
}

const maxXMLRead = 8000
