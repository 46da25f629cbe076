package strategies

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// withExternal adds the run's tools (Env.Tools, MCP servers) after the
// task's, each described by its server's schema, and the generic finish
// when no tool answers. Their names were made distinct from the task's
// when the run connected. A server's tool that is a task's tool
// (Replaces: bench mcp serve's) takes that tool's place instead: the
// model is offered the task's tool as it is, and its calls go to the
// server.
func withExternal(env Env, tools []tasks.Tool) []tasks.Tool {
	if env.Tools == nil {
		return tools
	}
	host := env.Tools
	call := func(name string) func(context.Context, json.RawMessage) (tasks.ToolResult, error) {
		return func(ctx context.Context, args json.RawMessage) (tasks.ToolResult, error) {
			return host.Call(ctx, name, args)
		}
	}
	for _, spec := range host.Specs() {
		if spec.Replaces != "" {
			if i := slices.IndexFunc(tools, func(t tasks.Tool) bool { return t.Name == spec.Replaces }); i >= 0 {
				if !tools[i].Final { // answering stays the task's
					tools[i] = tools[i].Routed(call(spec.Name))
				}
				continue
			}
		}
		tools = append(tools, tasks.NewSchemaTool(spec.Name, spec.Description, false, spec.Schema, call(spec.Name)))
	}
	if !slices.ContainsFunc(tools, func(t tasks.Tool) bool { return t.Final }) {
		tools = append(tools, genericFinish())
	}
	return tools
}

// agentOnly reports whether the agent's tools are only the run's (a task
// without tools of its own): its prompts are the task's agent_<protocol>
// templates, which describe the tools without a docstore's example.
func agentOnly(env Env) bool {
	_, ok := env.Task.(tasks.Toolbox)
	return !ok && env.Tools != nil
}

// toolDoc describes a tool to the templates; an external tool (made by
// NewSchemaTool) with its schema.
func toolDoc(t tasks.Tool) reactToolDoc {
	d := reactToolDoc{Name: t.Name, Syntax: textSyntax(t), Description: t.Description, XML: xmlSyntax(t)}
	if t.External() {
		d.Schema = string(t.Schema())
	}
	return d
}

// toolMetrics are an item's figures of its calls to the run's tools (nil
// entries are actions on the task's own tools or none): tool_calls,
// tool_errors among them, and tool_failures among those, the calls its
// server failed (a crash, a timeout, a broken connection) rather than the
// tool refused.
func toolMetrics(calls []*events.ToolCall) map[string]float64 {
	n, errs, failures := 0, 0, 0
	for _, c := range calls {
		if c == nil {
			continue
		}
		n++
		if c.Error != "" {
			errs++
		}
		if c.ServerFailed {
			failures++
		}
	}
	return map[string]float64{"tool_calls": float64(n), "tool_errors": float64(errs), "tool_failures": float64(failures)}
}

// externalCalls lists a trajectory's calls to the run's tools.
func externalCalls(tr reading.ReActTrajectory) []reading.StepToolCall {
	var out []reading.StepToolCall
	for _, st := range tr.Steps {
		for _, a := range st.Actions {
			if a.External != nil {
				out = append(out, reading.StepToolCall{Step: st.Step, ToolCall: *a.External})
			}
		}
	}
	return out
}

// recordObservation traces an action's observation and, for a call to a
// run's tool, its record in one line (kind tool_call).
func (a *agent) recordObservation(ctx context.Context, call reading.ReActAction) error {
	if err := a.record(ctx, "observation", call.Observation); err != nil {
		return err
	}
	if call.External == nil {
		return nil
	}
	return a.record(ctx, "tool_call", ToolCallLine(*call.External))
}

// ToolCallLine describes a tool call in one line: identity, latency,
// replayed or not, and its error.
func ToolCallLine(c events.ToolCall) string {
	line := fmt.Sprintf("%s %s %s · %.1f ms", c.Server, c.Tool, clip(string(c.Arguments), 200), c.LatencyMS)
	if c.Cached {
		line += " · replayed"
	}
	if c.Error != "" {
		line += " · error: " + clip(c.Error, 300)
	} else {
		line += " · ok"
	}
	return line
}
