package tooluser

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

type toolDoc struct {
	Name, Syntax, Description, Schema, XML string
}

const (
	sumSchema  = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`
	echoSchema = `{"type":"object","properties":{"message":{"type":"string"}}}`
)

// render fills an agent template as react does.
func render(t *testing.T, protocol, question string) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	out, err := lib.Render("qa/agent_"+protocol, struct {
		Input       string
		MaxSteps    int
		Protocol    string
		Tools       []toolDoc
		LastAttempt string
		Reflections []string
	}{Input: question, MaxSteps: 5, Protocol: protocol, Tools: []toolDoc{
		{"echo", "Echo[message]", "Echoes back the input message", echoSchema, "<echo><message>...</message></echo>"},
		{"get-sum", "Get-sum[a, b]", "Returns the sum of two numbers", sumSchema, "<get-sum><a>...</a><b>...</b></get-sum>"},
		{"finish", "Finish[answer]", "Give the final answer.", "", "<finish><answer>...</answer></finish>"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, MarkerAgent) {
		t.Fatalf("qa/agent_%s lacks the marker %q", protocol, MarkerAgent)
	}
	if (protocol == "xml") != strings.Contains(out, sim.MarkerReActXML) {
		t.Fatalf("qa/agent_%s: the xml marker %q present: %v", protocol, sim.MarkerReActXML, !(protocol == "xml"))
	}
	return out
}

func respond(t *testing.T, p sim.Prompt) llm.Choice {
	t.Helper()
	params := sim.DefaultParams()
	params.Skill, params.Slip = 1, 0
	c, ok := Responder{}.Respond(p, rand.New(rand.NewPCG(1, 2)), params)
	if !ok {
		t.Fatal("the agent prompt was not recognised")
	}
	return c
}

// TestToolUser: in each protocol it calls get-sum with the question's
// numbers (the tool sharing the question's words), then finishes with
// the number the tool returned; on the last step it answers.
func TestToolUser(t *testing.T) {
	q := "What is the sum of 17 and 25?"
	specs := []llm.ToolSpec{{Name: "echo", Description: "Echoes back the input message", Parameters: json.RawMessage(echoSchema)},
		{Name: "get-sum", Description: "Returns the sum of two numbers", Parameters: json.RawMessage(sumSchema)},
		{Name: "finish", Description: "Give the final answer.", Parameters: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)}}
	for _, c := range []struct {
		protocol  string
		tools     []llm.ToolSpec
		want      string
		obsTurn   func(string) []llm.Message
		wantFinal string
	}{
		{"tools", specs, `get-sum {"a":17,"b":25}`, func(o string) []llm.Message {
			return []llm.Message{{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "get-sum", Arguments: `{"a":17,"b":25}`}}}, {Role: "tool", ToolCallID: "c1", Content: o}}
		}, `finish {"answer":"42"}`},
		{"text", nil, "Action: Get-sum[17, 25]", func(o string) []llm.Message {
			return []llm.Message{{Role: "assistant", Content: "Action: Get-sum[17, 25]"}, {Role: "user", Content: "Observation: " + o}}
		}, "Action: Finish[42]"},
		{"json", nil, `"action":"get-sum","input":{"a":17,"b":25}`, func(o string) []llm.Message {
			return []llm.Message{{Role: "assistant", Content: "{}"}, {Role: "user", Content: "Observation: " + o}}
		}, `"action":"finish","input":"42"`},
		{"xml", nil, "<get-sum>\n<a>17</a>\n<b>25</b>\n</get-sum>", func(o string) []llm.Message {
			return []llm.Message{{Role: "assistant", Content: "<get-sum>\n<a>17</a>\n<b>25</b>\n</get-sum>"}, {Role: "user", Content: "Observation: " + o}}
		}, "<finish>\n<answer>42</answer>\n</finish>"},
	} {
		first := []llm.Message{{Role: "user", Content: render(t, c.protocol, q)}}
		got := text(respond(t, sim.Prompt{Messages: first, Tools: c.tools}))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s first turn: %q, want %q", c.protocol, got, c.want)
		}
		msgs := append(first, c.obsTurn("The sum of 17 and 25 is 42.")...)
		if got := text(respond(t, sim.Prompt{Messages: msgs, Tools: c.tools})); !strings.Contains(got, c.wantFinal) {
			t.Errorf("%s after the observation: %q, want %q", c.protocol, got, c.wantFinal)
		}
		// An error observation: it does not answer from it.
		msgs = append(first, c.obsTurn("Error: no answer within 3s")...)
		if got := text(respond(t, sim.Prompt{Messages: msgs, Tools: c.tools})); strings.Contains(got, "3") {
			t.Errorf("%s after an error: %q", c.protocol, got)
		}
	}
	// Last step with the tools withdrawn: an answer in text.
	msgs := []llm.Message{{Role: "user", Content: render(t, "tools", q)}, {Role: "user", Content: "This is the last step and the tools are no longer available"}}
	if got := respond(t, sim.Prompt{Messages: msgs}); got.Content != "Answer: unknown" || len(got.ToolCalls) != 0 {
		t.Errorf("last step: %+v", got)
	}
}

func text(c llm.Choice) string {
	s := c.Content
	for _, tc := range c.ToolCalls {
		s += tc.Name + " " + tc.Arguments
	}
	return s
}

// TestOtherPromptsAndGarbage: prompts without the marker are left to
// other responders; a hostile prompt with the marker gets an answer, no
// panic.
func TestOtherPromptsAndGarbage(t *testing.T) {
	if _, ok := (Responder{}).Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Task: answer a question by reading a docstore"}}}, rand.New(rand.NewPCG(1, 1)), sim.DefaultParams()); ok {
		t.Error("answered a docstore prompt")
	}
	for _, garbage := range []string{MarkerAgent, MarkerAgent + "\n- [: \n- \"\": Input (JSON schema): {{{", MarkerAgent + strings.Repeat("- x[", 1000)} {
		respond(t, sim.Prompt{Messages: []llm.Message{{Role: "user", Content: garbage}}, Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`nonsense`)}}})
	}
}
