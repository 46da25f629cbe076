package hotpotqa

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

func refPrompt(text string) sim.Prompt {
	return sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}
}

// TestSimRefAgent: the simulator answers the reference agents' prompts by
// their shape: a thought, the action it implies, and reflections that name
// a failure only when the scratchpad shows one.
func TestSimRefAgent(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	q := qs[0]
	rng := rand.New(rand.NewPCG(1, 2))
	perfect := sim.Params{Skill: 1}
	head := "Any instructions.\nQuestion: an example?\nThought: x\nAction: Finish[y]\n(END)\n\nQuestion: " + q.Question

	c, ok := respondRefAgent(refPrompt(head+"\nThought:"), rng, perfect, nil)
	if !ok || !strings.HasPrefix(c.Content, "I connect") || !strings.HasSuffix(c.Content, ".") {
		t.Fatalf("cot thought: %v %q", ok, c.Content)
	}
	c2, ok := respondRefAgent(refPrompt(head+"\nThought: "+c.Content+"\nAction:"), rng, perfect, nil)
	ans := strings.TrimSuffix(strings.TrimPrefix(c.Content[strings.Index(c.Content, "So the answer is "):], "So the answer is "), ".")
	if !ok || c2.Content != "Finish["+ans+"]" {
		t.Errorf("cot action: %v %q after %q", ok, c2.Content, c.Content)
	}

	c, ok = respondRefAgent(refPrompt(head+"\nThought 1:"), rng, perfect, nil)
	name := reading.Names(q.Question)[0]
	if !ok || !strings.HasSuffix(c.Content, "I will search "+name+".") {
		t.Fatalf("react thought 1: %v %q", ok, c.Content)
	}
	c2, _ = respondRefAgent(refPrompt(head+"\nThought 1: "+c.Content+"\nAction 1:"), rng, perfect, nil)
	if c2.Content != "Search["+name+"]" {
		t.Errorf("react action 1: %q", c2.Content)
	}
	// It reads its observations: after the page of that name, it searches
	// on or answers from what the page says.
	obs, _ := hotpotqa.NewLocalDocstore(q.Context).Search(context.Background(), name)
	pad := head + "\nThought 1: " + c.Content + "\nAction 1: Search[" + name + "]\nObservation 1: " + obs + "\nThought 2:"
	c, ok = respondRefAgent(refPrompt(pad), rng, perfect, nil)
	if !ok || strings.Contains(c.Content, "search "+name+".") {
		t.Errorf("react thought 2 after reading %s: %v %q", name, ok, c.Content)
	}

	for _, tc := range []struct {
		pad   string
		named bool
	}{
		{"\nThought: t\nAction: Finish[Paris]\nObservation: Answer is INCORRECT", true},
		{"\nThought: t\nAction: Finish[Paris]\nObservation: Answer is CORRECT", false},
		{"\nThought 1: t\nAction 1: Search[x]\nObservation 1: nothing", true},
	} {
		c, ok := respondRefAgent(refPrompt(head+tc.pad+"\n\nReflection:"), rng, perfect, nil)
		if !ok || strings.Contains(c.Content, sim.NamedFailure) != tc.named {
			t.Errorf("reflection on %q: %v %q", tc.pad, ok, c.Content)
		}
	}

	// A question that is not bundled is answered by the prompt's shape.
	if c, ok := respondRefAgent(refPrompt("Question: not a bundled question\nThought:"), rng, perfect, nil); !ok || !strings.Contains(c.Content, "So the answer is") {
		t.Errorf("unbundled question: %v %q", ok, c.Content)
	}
	// Not its prompts: the harness's own, chat histories.
	for _, p := range []sim.Prompt{
		refPrompt("Question: " + q.Question),
		refPrompt(head + "\n(END PREVIOUS TRIAL)\n\nReflection:"),
		{Messages: []llm.Message{{Role: "user", Content: head + "\nThought:"}, {Role: "assistant", Content: "x"}}},
	} {
		if c, ok := respondRefAgent(p, rng, perfect, nil); ok {
			t.Errorf("answered %q with %q", p.Messages[0].Content, c.Content)
		}
	}
}
