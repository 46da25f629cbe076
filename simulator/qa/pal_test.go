package qa

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

const palQuestion = "A baker makes 24 rolls in the morning and 18 rolls in the afternoon. She sells 35 of them. How many rolls are left?"

func TestPALTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name, markers := range map[string][]string{
		"gsm8k/pal":          {markerQA, markerPAL},
		"gsm8k/pal_feedback": {markerQA, markerPALFeedback},
	} {
		text, ok := lib.Text(name)
		if !ok {
			t.Fatalf("no template %s", name)
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("%s lacks the marker %q", name, m)
			}
		}
	}
}

func palPrompt(t *testing.T, name string, data any) sim.Prompt {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	text, err := lib.Render(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}
}

func respondPALPrompt(t *testing.T, p sim.Prompt, seed uint64, params sim.Params) string {
	t.Helper()
	c, ok := Responder{}.Respond(p, rand.New(rand.NewPCG(seed, 1)), params)
	if !ok {
		t.Fatalf("no answer to\n%s", p.Messages[0].Content)
	}
	return c.Content
}

// The writer writes the plan it would write as CoT: at skill 1 without
// slips, the considered plan's operations, every constant as read.
func TestPALWriterWritesItsPlan(t *testing.T) {
	m, _ := readProblem(palQuestion)
	p := palPrompt(t, "gsm8k/pal", struct{ Input string }{palQuestion})
	out := respondPALPrompt(t, p, 1, sim.Params{Skill: 1, Focus: 2})
	if !strings.HasPrefix(out, "```python\ndef solution():\n") {
		t.Fatalf("not a program:\n%s", out)
	}
	plan, ok := readPAL(strings.Trim(strings.TrimPrefix(out, "```python"), "`\n"), len(m.qs))
	if !ok {
		t.Fatalf("the critic cannot read the writer's program:\n%s", out)
	}
	for i, o := range plan.ops {
		if o != m.options[i][0] {
			t.Errorf("step %d: %c, want the most plausible %c", i, o, m.options[i][0])
		}
	}
	for i, c := range plan.consts {
		if c.Cmp(m.qs[i].val) != 0 {
			t.Errorf("constant q%d = %v, want %v", i+1, c, m.qs[i].val)
		}
	}
	// With slips every program has one constant off by one.
	out = respondPALPrompt(t, p, 2, sim.Params{Skill: 1, Slip: 1, Focus: 2})
	plan, _ = readPAL(strings.Trim(strings.TrimPrefix(out, "```python"), "`\n"), len(m.qs))
	off := 0
	for i, c := range plan.consts {
		if c.Cmp(m.qs[i].val) != 0 {
			off++
		}
	}
	if off != 1 {
		t.Errorf("%d constants off with slip 1:\n%s", off, out)
	}
}

func TestPALCriticReadsTheProgram(t *testing.T) {
	m, _ := readProblem(palQuestion)
	want, _ := m.considered()
	right := m.program(palPlan{consts: []*big.Rat{m.qs[0].val, m.qs[1].val, m.qs[2].val}, ops: want})
	wrongOps := append([]op(nil), want...)
	wrongOps[1] = opAdd
	if wrongOps[1] == want[1] {
		wrongOps[1] = opMul
	}
	wrong := m.program(palPlan{consts: []*big.Rat{m.qs[0].val, m.qs[1].val, m.qs[2].val}, ops: wrongOps})
	feedback := func(program string, params sim.Params) string {
		return respondPALPrompt(t, palPrompt(t, "gsm8k/pal_feedback", struct{ Input, Program string }{palQuestion, program}), 3, params)
	}
	exact := sim.Params{Skill: 1, Focus: 2}
	if fb := feedback(right, exact); !strings.Contains(fb, "it is correct") || !strings.Contains(fb, right) {
		t.Errorf("a right program:\n%s", fb)
	}
	fb := feedback(wrong, exact)
	if strings.Contains(fb, "it is correct") || !strings.Contains(fb, "q3") || !strings.Contains(fb, right) {
		t.Errorf("a wrong program, skill 1: want the step named and fixed to\n%s\ngot\n%s", right, fb)
	}
	// Misjudging always: the right program is rejected, the wrong passed.
	always := sim.Params{Skill: 1, Misjudge: 1, Focus: 2}
	if fb := feedback(right, always); strings.Contains(fb, "it is correct") || strings.Contains(fb, right) {
		t.Errorf("misjudge 1, right program:\n%s", fb)
	}
	if fb := feedback(wrong, always); !strings.Contains(fb, "it is correct") {
		t.Errorf("misjudge 1, wrong program:\n%s", fb)
	}
	// A program of another shape is passed unread, and echoed.
	other := "def solution():\n    return (24 + 18) - 35"
	if fb := feedback(other, exact); !strings.Contains(fb, "it is correct") || !strings.Contains(fb, other) {
		t.Errorf("another program:\n%s", fb)
	}
}

// ReAct with the python tool: the first turn runs the PAL program, the
// next finishes with the number the run printed, in each protocol.
func TestReActPythonRunsThenFinishes(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	text, ok := lib.Text("qa/react_python")
	if !ok || !strings.Contains(text, markerReActPython) || !strings.Contains(text, markerQA) {
		t.Fatal("qa/react_python lacks its markers")
	}
	for _, proto := range []string{"text", "json", "tools"} {
		prompt, err := lib.Render("qa/react_python", struct {
			Input, Protocol string
			MaxSteps        int
			Tools           []struct{ Name, Syntax, Description string }
		}{palQuestion, proto, 5, []struct{ Name, Syntax, Description string }{{"python", "Python[code]", "run"}, {"finish", "Finish[answer]", "answer"}}})
		if err != nil {
			t.Fatal(err)
		}
		p := sim.Prompt{Messages: []llm.Message{{Role: "user", Content: prompt}}}
		if proto == "tools" {
			p.Tools = []llm.ToolSpec{{Name: "python"}, {Name: "finish"}}
		}
		first, _ := Responder{}.Respond(p, rand.New(rand.NewPCG(1, 1)), sim.Params{Skill: 1, Focus: 2})
		body := first.Content
		for _, tc := range first.ToolCalls {
			body += tc.Name + " " + tc.Arguments
		}
		if !strings.Contains(strings.ToLower(body), "python") || !strings.Contains(body, "print(solution())") {
			t.Errorf("%s: first turn %q", proto, body)
		}
		p.Messages = append(p.Messages, llm.Message{Role: "assistant", Content: first.Content, ToolCalls: first.ToolCalls},
			llm.Message{Role: "user", Content: "Observation: 123"})
		second, _ := Responder{}.Respond(p, rand.New(rand.NewPCG(2, 1)), sim.Params{Skill: 1, Focus: 2})
		body = second.Content
		for _, tc := range second.ToolCalls {
			body += tc.Name + " " + tc.Arguments
		}
		if !strings.Contains(strings.ToLower(body), "finish") || !strings.Contains(body, "123") {
			t.Errorf("%s: second turn %q", proto, body)
		}
	}
}
