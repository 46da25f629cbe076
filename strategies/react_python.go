package strategies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// ReAct tool sets (react's tools parameter).
const (
	ToolsTask       = "task"        // the task's own tools (tasks.Toolbox)
	ToolsPython     = "python"      // a Python interpreter and a finish tool
	ToolsTaskPython = "task+python" // both
)

// maxPythonObservation bounds what a run shows the model: its output's
// head and tail, as agent runtimes cut long tool output.
const maxPythonObservation = 2000

// pythonArgs are the python tool's arguments.
type pythonArgs struct {
	Code string `json:"code" desc:"a Python 3 program; what it prints is the observation"`
}

// finishArgs are the generic finish tool's arguments, for tasks without
// tools of their own.
type finishArgs struct {
	Answer string `json:"answer" desc:"the final answer"`
}

// pythonTool is the sandbox as a tool: the program runs as a script
// (nothing is kept between calls), and the observation is its standard
// output, or on failure the reason and the end of standard error, as an
// interpreter's traceback ends with the error. Each run is an execution
// of the item at site t<trial>/s<step>/python (a second call in one turn
// .../python.2, and so on).
func (a *agent) pythonTool() tasks.Tool {
	return tasks.NewTool("python", "Run a Python 3 program in a sandbox (no network, no files kept between runs, "+
		"standard library only) and see what it prints: print the values you need.", false,
		func(ctx context.Context, args pythonArgs) (tasks.ToolResult, error) {
			if strings.TrimSpace(args.Code) == "" {
				return tasks.ToolResult{Refused: true, Observation: "The program is empty: give Python code to run."}, nil
			}
			a.pyCalls++
			site := fmt.Sprintf("t%d/s%d/python", a.trial, a.step)
			if a.pyCalls > 1 {
				site += fmt.Sprintf(".%d", a.pyCalls)
			}
			code := args.Code
			if len(code) > maxProgram {
				code = code[:maxProgram]
			}
			res, err := a.env.Exec.Execute(ctx, site, sandbox.Program{Source: stripFence(code), Limits: a.s.limits})
			if err != nil {
				return tasks.ToolResult{}, fmt.Errorf("react: %s: %w", site, err)
			}
			return tasks.ToolResult{Observation: PythonObservation(res)}, nil
		})
}

// PythonObservation is what a program's run shows the model.
func PythonObservation(res sandbox.Result) string {
	out := strings.TrimRight(res.Stdout, "\n")
	if res.Passed() {
		if strings.TrimSpace(out) == "" {
			return "(the program printed nothing; print the values you need)"
		}
		return headTail(out, maxPythonObservation)
	}
	obs := "Error (" + res.Reason() + ")"
	if errText := strings.TrimRight(res.Stderr, "\n"); errText != "" {
		obs += ":\n" + headTail(errText, maxPythonObservation/2)
	}
	if out != "" {
		obs = "Output:\n" + headTail(out, maxPythonObservation/2) + "\n" + obs
	}
	return obs
}

// headTail keeps the start and the end of a long text.
func headTail(s string, n int) string {
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	h := n / 4
	return clip(s, h) + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-n) + strings.ToValidUTF8(s[len(s)-(n-h):], "\uFFFD")
}

// stripFence takes the code out of a fenced block, as models often write
// the python tool's argument.
func stripFence(code string) string {
	if strings.Contains(code, "```") {
		return ExtractProgram(code)
	}
	return code
}

// genericFinish answers for a task without tools: its output is
// "Answer: <answer>", which the task's scorer reads.
func genericFinish() tasks.Tool {
	return tasks.NewTool("finish", "Give the final answer and end the task.", true,
		func(_ context.Context, args finishArgs) (tasks.ToolResult, error) {
			ans := strings.TrimSpace(args.Answer)
			if ans == "" {
				return tasks.ToolResult{Refused: true, Observation: "The answer is empty."}, nil
			}
			return tasks.ToolResult{Final: true, Output: "Answer: " + clip(ans, maxCallText), Observation: "Episode finished."}, nil
		})
}

// toolSet returns a trajectory's tools under the tools parameter.
func (a *agent) toolSet(inst tasks.Instance) ([]tasks.Tool, error) {
	set := a.s.tools
	if set == "" {
		set = ToolsTask
	}
	var tools []tasks.Tool
	tb, isToolbox := a.env.Task.(tasks.Toolbox)
	if set != ToolsPython || isToolbox {
		if !isToolbox && a.env.Tools == nil {
			return nil, a.s.CheckTask(a.env.Task)
		}
		if isToolbox {
			var err error
			if tools, err = tb.Tools(inst); err != nil {
				return nil, err
			}
		}
	}
	if set == ToolsTask {
		return withExternal(a.env, tools), nil
	}
	if a.env.Exec == nil {
		return nil, errors.New("react tools=python: the run has no sandbox to execute programs in")
	}
	var final *tasks.Tool
	for i := range tools {
		if tools[i].Final {
			final = &tools[i]
			break
		}
	}
	if set == ToolsPython {
		// The interpreter and the task's way to answer, or a generic one.
		tools = nil
		if final != nil {
			tools = append(tools, *final)
		}
	}
	if final == nil {
		tools = append(tools, genericFinish())
	}
	return withExternal(a.env, append([]tasks.Tool{a.pythonTool()}, tools...)), nil
}
