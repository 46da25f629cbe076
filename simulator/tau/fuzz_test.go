package tau

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// FuzzAgent feeds the agent conversations with hostile turns (the user's
// words, tool results, its own earlier turns) in each protocol. Its reply
// must be one the episode loop acts on without ending the episode: a
// message, or one call of an offered tool whose arguments are a JSON
// object (text protocols: an action with name and arguments, or text said
// to the user).
func FuzzAgent(f *testing.F) {
	f.Add("retail", "I want to return the smart watch, my email is yusuf.rossi@example.com", `{"order_id": "#W2378156", "items": [{"name": 1}]}`, "Details: cancel_pending_order {\"order_id\": ", uint8(0))
	f.Add("airline", "my user id is mia_li_3668, cancel AB12CD", `{"reservation_id": "AB12CD", "flights": "x", "passengers": null}`, "Action: {\"name\": 5}", uint8(1))
	f.Add("retail", "yes", "Error: order not found", "<get_order_details><order_id>#W1</order_id>", uint8(3))
	f.Add("airline", strings.Repeat("cancel book change ", 500), strings.Repeat("[", 3000), "", uint8(2))
	f.Fuzz(func(t *testing.T, domain, userText, toolResult, ownText string, protoIndex uint8) {
		proto := protocols[int(protoIndex)%len(protocols)]
		specs, policy := airlineSpecs, testAirlinePolicy
		if domain == "retail" {
			specs, policy = retailSpecs, testRetailPolicy
		}
		var tools []llm.ToolSpec
		var list []map[string]any
		for _, s := range specs {
			tools = append(tools, llm.ToolSpec{Name: s.name, Description: s.desc, Parameters: json.RawMessage(s.params)})
			list = append(list, map[string]any{"type": "function", "function": map[string]any{"name": s.name, "parameters": json.RawMessage(s.params)}})
		}
		p := sim.Prompt{}
		if proto == protoTools {
			p.Tools = tools
			p.Messages = []llm.Message{{Role: "system", Content: policy}, {Role: "user", Content: userText},
				{Role: "assistant", Content: ownText},
				{Role: "user", Content: userText},
				{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: specs[int(protoIndex)%len(specs)].name, Arguments: ownText}}},
				{Role: "tool", ToolCallID: "c1", Content: toolResult}}
		} else {
			b, _ := json.Marshal(list)
			system := policy + "\n#Available tools\n" + string(b) + map[string]string{protoAct: actInstruction, protoReAct: reactInstruction, protoXML: xmlInstruction}[proto]
			p.Messages = []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: userText},
				{Role: "assistant", Content: ownText}, {Role: "user", Content: "API output: " + toolResult},
				{Role: "user", Content: userText}}
		}
		params := sim.DefaultParams()
		params.Slip = 0
		c, ok := Responder{}.Respond(p, rand.New(rand.NewPCG(uint64(len(userText)), uint64(protoIndex))), params)
		if !ok {
			t.Fatal("the agent prompt was not recognised")
		}
		if proto == protoTools {
			switch {
			case len(c.ToolCalls) == 0 && c.Content == "":
				t.Fatal("an empty reply")
			case len(c.ToolCalls) > 1:
				t.Fatalf("%d tool calls", len(c.ToolCalls))
			case len(c.ToolCalls) == 1:
				var obj map[string]any
				if json.Unmarshal([]byte(c.ToolCalls[0].Arguments), &obj) != nil || obj == nil {
					t.Fatalf("arguments not a JSON object: %q", c.ToolCalls[0].Arguments)
				}
				if !slices.ContainsFunc(specs, func(s toolSpec) bool { return s.name == c.ToolCalls[0].Name }) {
					t.Fatalf("a tool not offered: %s", c.ToolCalls[0].Name)
				}
			}
			return
		}
		name, _, ok := parseTextReply(t, proto, c.Content, specs)
		if !ok {
			t.Fatalf("a reply that ends the episode: %q", c.Content)
		}
		if name != "respond" && !slices.ContainsFunc(specs, func(s toolSpec) bool { return s.name == name }) {
			t.Fatalf("a tool not offered: %s in %q", name, c.Content)
		}
	})
}

// FuzzUser: whatever its instruction and the agent say, the user answers
// one non-empty line, and ###STOP### only alone.
func FuzzUser(f *testing.F) {
	f.Add(instructions[0], "Could you please provide your user id?", "react")
	f.Add(instructions[3], refusalMark+"return: no. Is there anything else I can help you with?", "llm")
	f.Add("(((", "Details: x {. "+confirmAsk, "llm")
	f.Add(strings.Repeat("You want to cancel #W1234567. ", 300), strings.Repeat("?", 5000), "react")
	f.Fuzz(func(t *testing.T, instruction, agentText, strategy string) {
		system := fmt.Sprintf(testUserPrompt, strings.ReplaceAll(instruction, "\n", " "))
		if strategy == "react" {
			system += "\nUser Response:"
		}
		p := sim.Prompt{Messages: []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: "Hi"},
			{Role: "assistant", Content: "Hi! I need some help."}, {Role: "user", Content: agentText}}}
		c, ok := Responder{}.Respond(p, rand.New(rand.NewPCG(1, uint64(len(agentText)))), sim.DefaultParams())
		if !ok {
			t.Fatal("the user prompt was not recognised")
		}
		line := c.Content
		if strategy == "react" {
			_, r, ok := strings.Cut(line, reactUser)
			if !ok || !strings.HasPrefix(line, "Thought:") {
				t.Fatalf("react reply without its format: %q", line)
			}
			line = strings.TrimSpace(r)
		}
		if strings.TrimSpace(line) == "" {
			t.Fatal("an empty reply")
		}
		if strings.Contains(line, stopMarker) && line != stopMarker {
			t.Fatalf("###STOP### not alone: %q", line)
		}
	})
}
