package game24

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

func TestReActTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name, markers := range map[string][]string{
		"react_text":  {markerReAct, markerReActText, "Add[a, b]", "Finish[expression]"},
		"react_json":  {markerReAct, markerReActJSON},
		"react_tools": {markerReAct},
		"react_xml":   {markerReAct, sim.MarkerReActXML, "<finish><expression>"},
	} {
		text, ok := lib.Text("game24/" + name)
		if !ok {
			t.Fatalf("no template game24/%s", name)
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("game24/%s lacks %q", name, m)
			}
		}
		if strings.Contains(strings.ToLower(text), markerReActLast) {
			t.Errorf("game24/%s says %q", name, markerReActLast)
		}
	}
	for _, name := range []string{"io", "cot", "propose", "value", "value_last", "vote"} {
		if text, ok := lib.Text("game24/" + name); ok && strings.Contains(text, markerReAct) {
			t.Errorf("game24/%s carries the ReAct marker", name)
		}
	}
}

// playReAct drives the simulator through one trajectory on the tools, as
// the react strategy does, and returns the final output.
func playReAct(t *testing.T, m *sim.Model, puzzle, protocol string, maxSteps int, seed int64) (string, int) {
	t.Helper()
	lib, _ := prompts.Bundled()
	prompt, err := lib.Render("game24/react_"+protocol, struct {
		Input    string
		MaxSteps int
	}{puzzle, maxSteps})
	if err != nil {
		t.Fatal(err)
	}
	nums, _ := game24.ParsePuzzle(puzzle)
	list, err := game24.NewTask().Tools(tasks.Instance{Input: puzzle, Data: game24.Puzzle{Numbers: nums}})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]tasks.Tool{}
	var specs []llm.ToolSpec
	for _, tool := range list {
		tools[tool.Name] = tool
		specs = append(specs, llm.ToolSpec{Name: tool.Name, Description: tool.Description, Parameters: tool.Schema()})
	}
	msgs := []llm.Message{{Role: "user", Content: prompt}}
	refused := 0
	for step := 1; step <= maxSteps; step++ {
		req := llm.Request{Messages: msgs, Seed: seed}
		last := step == maxSteps
		if last {
			msgs = append(msgs, llm.Message{Role: "user", Content: "This is the last step: answer now."})
			req.Messages = msgs
		} else if protocol == "tools" {
			req.Tools = specs
		}
		resp, err := m.Sample(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		c := resp.Choices[0]
		msgs = append(msgs, c.Message())
		var name string
		var args json.RawMessage
		switch {
		case protocol == "tools" && last:
			return c.Content, refused
		case protocol == "tools":
			if len(c.ToolCalls) != 1 || c.Reasoning == "" {
				t.Fatalf("tool turn %+v", c)
			}
			name, args = c.ToolCalls[0].Name, json.RawMessage(c.ToolCalls[0].Arguments)
		case protocol == "json":
			var obj struct {
				Thought, Action string
				Input           json.RawMessage
			}
			if err := json.Unmarshal([]byte(c.Content), &obj); err != nil {
				t.Fatalf("json turn %q: %v", c.Content, err)
			}
			name, args = obj.Action, obj.Input
		default:
			_, act, ok := strings.Cut(c.Content, "\nAction: ")
			if !ok {
				t.Fatalf("text turn %q", c.Content)
			}
			n, in, _ := strings.Cut(strings.TrimSuffix(act, "]"), "[")
			name = strings.ToLower(n)
			if name == game24.ToolFinish {
				args, _ = json.Marshal(map[string]string{"expression": in})
			} else {
				a, b, _ := strings.Cut(in, ", ")
				args, _ = json.Marshal(map[string]string{"a": a, "b": b})
			}
		}
		res, err := tools[name].Call(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		if res.Refused {
			refused++
		}
		if res.Final {
			return res.Output, refused
		}
		if protocol == "tools" {
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: c.ToolCalls[0].ID, Content: res.Observation})
		} else {
			msgs = append(msgs, llm.Message{Role: "user", Content: "Observation: " + res.Observation})
		}
	}
	t.Fatal("no answer")
	return "", 0
}

func TestSimReActSolvesWithTheTools(t *testing.T) {
	all, err := game24.Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	perfect, _ := sim.New(sim.Params{Skill: 1}, NewResponder())
	for _, protocol := range []string{"text", "json", "tools"} {
		for _, p := range all[900:910] {
			out, refused := playReAct(t, perfect, p.Text(), protocol, 7, 1)
			if v := game24.Check(p.Numbers, out); !v.Correct || refused != 0 {
				t.Errorf("%s %s: skill 1 gave %q (%s), %d refused", protocol, p.Text(), out, v.Reason, refused)
			}
		}
	}
	// Slips are operands the tools refuse, not wrong arithmetic.
	clumsy, _ := sim.New(sim.Params{Skill: 1, Slip: 0.5}, NewResponder())
	totalRefused := 0
	for _, p := range all[900:920] {
		_, refused := playReAct(t, clumsy, p.Text(), "text", 10, 2)
		totalRefused += refused
	}
	if totalRefused == 0 {
		t.Error("slip 0.5 never misread an operand")
	}
	// With one step it must answer at once.
	out, _ := playReAct(t, perfect, "4 5 6 10", "tools", 1, 1)
	if !strings.HasPrefix(out, "Answer: ") || !game24.Check([]int{4, 5, 6, 10}, out).Correct {
		t.Errorf("one step: %q", out)
	}
}
