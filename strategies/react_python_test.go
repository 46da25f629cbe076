package strategies

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// ReAct with tools=python on GSM8K (no tools of its own): the program's
// output or its error is the observation, every run is an execution at
// t<trial>/s<step>/python, and the generic finish answers.
func TestReActPythonTool(t *testing.T) {
	task, inst := gsmInstance(t, 0) // 18
	for _, c := range []struct {
		protocol string
		script   *turns
	}{
		{ProtocolText, text(
			"Thought: Work out the eggs left.\nAction: Python[\nprint(16 / 0)\n]",
			"Thought: Oops.\nAction: Python[\neggs = 16 - 3 - 4\nprint(eggs * 2)\n]",
			"Thought: 18 dollars.\nAction: Finish[18]")},
		{ProtocolJSON, text(
			`{"thought": "Eggs left.", "action": "python", "input": {"code": "print(16 / 0)"}}`,
			`{"thought": "Again.", "action": "python", "input": {"code": "eggs = 16 - 3 - 4\nprint(eggs * 2)"}}`,
			`{"thought": "Done.", "action": "finish", "input": "18"}`)},
		{ProtocolTools, &turns{replies: []llm.Choice{
			{ToolCalls: []llm.ToolCall{{ID: "a", Name: "python", Arguments: `{"code": "print(16 / 0)"}`}}},
			{ToolCalls: []llm.ToolCall{{ID: "b", Name: "python", Arguments: `{"code": "` + "```python\\neggs = 16 - 3 - 4\\nprint(eggs * 2)\\n```" + `"}`}}},
			{ToolCalls: []llm.ToolCall{{ID: "c", Name: "finish", Arguments: `{"answer": "18"}`}}},
		}}},
	} {
		ex := testExec(t)
		env := testEnv(t, c.script)
		env.Task, env.Exec = task, ex
		s := newStrategy(t, "react", map[string]any{"protocol": c.protocol, "tools": ToolsPython})
		if err := s.(TaskChecker).CheckTask(task); err != nil {
			t.Fatalf("%s: %v", c.protocol, err)
		}
		if s.(SandboxUser).NeedsSandbox() == "" {
			t.Fatal("tools=python does not declare its sandbox")
		}
		res, err := s.Solve(context.Background(), env, inst)
		if err != nil {
			t.Fatalf("%s: %v", c.protocol, err)
		}
		tr := res.Detail.(reading.ReActTrajectory)
		if res.Accuracy != 1 || res.Output != "Answer: 18" || len(tr.Steps) != 3 {
			t.Fatalf("%s: output %q, %d steps: %+v", c.protocol, res.Output, len(tr.Steps), tr)
		}
		obs0, obs1 := tr.Steps[0].Actions[0].Observation, tr.Steps[1].Actions[0].Observation
		if !strings.HasPrefix(obs0, "Error (exit code 1)") || !strings.Contains(obs0, "ZeroDivisionError: division by zero") || obs1 != "18" {
			t.Errorf("%s: observations %q, %q", c.protocol, obs0, obs1)
		}
		if !slices.Equal(ex.sites, []string{"t0/s1/python", "t0/s2/python"}) {
			t.Errorf("%s: sites %v", c.protocol, ex.sites)
		}
		// The tools shown are the interpreter and finish, nothing else.
		p := c.script.reqs[0].Messages[0].Content
		if c.protocol == ProtocolTools {
			if names := []string{c.script.reqs[0].Tools[0].Name, c.script.reqs[0].Tools[1].Name}; len(c.script.reqs[0].Tools) != 2 || !slices.Equal(names, []string{"python", "finish"}) {
				t.Errorf("tools %+v", c.script.reqs[0].Tools)
			}
		} else if lp := strings.ToLower(p); !strings.Contains(lp, "python") || !strings.Contains(lp, "finish") || !strings.Contains(p, inst.Input) {
			t.Errorf("%s prompt:\n%s", c.protocol, p)
		}
	}
}

// On Game of 24 the task's finish answers, beside the interpreter; with
// task+python the arithmetic tools stay too.
func TestReActPythonKeepsTheTasksFinish(t *testing.T) {
	for set, want := range map[string][]string{
		ToolsPython:     {"python", "finish"},
		ToolsTaskPython: {"python", "add", "subtract", "multiply", "divide", "finish"},
	} {
		tc := &turns{replies: []llm.Choice{
			{ToolCalls: []llm.ToolCall{{ID: "a", Name: "python", Arguments: `{"code": "print(4 * 5 + 10 - 6)"}`}}},
			{ToolCalls: []llm.ToolCall{{ID: "b", Name: "finish", Arguments: `{"expression": "4 * 5 + 10 - 6"}`}}},
		}}
		env := testEnv(t, tc)
		env.Exec = testExec(t)
		res, err := newStrategy(t, "react", map[string]any{"protocol": ProtocolTools, "tools": set}).Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, sp := range tc.reqs[0].Tools {
			names = append(names, sp.Name)
		}
		if !slices.Equal(names, want) || res.Accuracy != 1 || res.Detail.(reading.ReActTrajectory).Steps[0].Actions[0].Observation != "24" {
			t.Errorf("%s: tools %v, accuracy %v, %+v", set, names, res.Accuracy, res.Detail)
		}
	}
	// Without tools=python a task with no tools is refused, and nothing
	// runs without a sandbox.
	task, inst := gsmInstance(t, 0)
	if err := newStrategy(t, "react", nil).(TaskChecker).CheckTask(task); err == nil {
		t.Error("react on GSM8K with the task's (no) tools accepted")
	}
	env := testEnv(t, text("Action: Python[print(1)]"))
	env.Task = task
	if _, err := newStrategy(t, "react", map[string]any{"tools": ToolsPython}).Solve(context.Background(), env, inst); err == nil {
		t.Error("ran python without a sandbox")
	}
}

func TestPythonObservation(t *testing.T) {
	long := strings.Repeat("a", 5000) + "END"
	for _, c := range []struct {
		res  sandbox.Result
		want []string
	}{
		{sandbox.Result{Status: sandbox.OK, Stdout: "18\n"}, []string{"18"}},
		{sandbox.Result{Status: sandbox.OK}, []string{"printed nothing"}},
		{sandbox.Result{Status: sandbox.OK, Stdout: long}, []string{"bytes cut", "END"}},
		{sandbox.Result{Status: sandbox.Timeout, Stdout: "partial\n"}, []string{"Output:\npartial", "Error (timeout limit)"}},
		{sandbox.Result{Status: sandbox.Exit, ExitCode: 1, Stderr: "Traceback\n" + long + "\nNameError: x"}, []string{"Error (exit code 1)", "NameError: x"}},
	} {
		got := PythonObservation(c.res)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("PythonObservation(%+v) = %q lacks %q", c.res.Status, got, w)
			}
		}
		if len(got) > maxPythonObservation+200 {
			t.Errorf("observation of %d bytes", len(got))
		}
	}
}
