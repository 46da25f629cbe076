package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
)

// ReActProtocol tells which protocol a ReAct conversation uses from its
// first user turn: "tools" when tools are offered or the turn carries
// toolsMarker, "json" when it carries jsonMarker, else "text".
func ReActProtocol(p Prompt, first, toolsMarker, jsonMarker string) string {
	switch {
	case len(p.Tools) > 0 || strings.Contains(first, toolsMarker):
		return "tools"
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
//   - otherwise text: "Thought: ...\nAction: Action[input]".
func ReActTurn(proto string, last bool, turn int, thought, action, argName, input string, rng *rand.Rand) llm.Choice {
	switch proto {
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
