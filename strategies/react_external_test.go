package strategies

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// hostStub is a ToolHost whose calls are answered and counted here.
type hostStub struct {
	specs []tasks.ExternalTool
	calls []string
}

func (h *hostStub) Specs() []tasks.ExternalTool { return h.specs }

func (h *hostStub) Call(_ context.Context, name string, args json.RawMessage) (tasks.ToolResult, error) {
	h.calls = append(h.calls, name+" "+string(args))
	return tasks.ToolResult{Observation: "served " + name, Call: &events.ToolCall{Server: "hotpot", Tool: name}}, nil
}

// TestWithExternalReplaces: a run's tool that replaces a task's (a served
// copy) keeps the task's tool in its place, with its name, description and
// schema, and sends its calls to the host with the arguments as written;
// the host's other tools follow the task's; finish stays the task's
// (a copy of it is not offered twice).
func TestWithExternalReplaces(t *testing.T) {
	t.Parallel()
	task := hotpotqa.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := task.Tools(insts[0])
	if err != nil {
		t.Fatal(err)
	}
	own, err := task.Tools(insts[0])
	if err != nil {
		t.Fatal(err)
	}
	host := &hostStub{specs: []tasks.ExternalTool{
		{Name: "lookup", Replaces: "lookup", Server: "hotpot", Schema: json.RawMessage(`{"type":"object"}`)},
		{Name: "hotpot_finish", Server: "hotpot", Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)},
		{Name: "finish", Replaces: "finish", Server: "hotpot", Schema: json.RawMessage(`{"type":"object"}`)},
	}}
	got := withExternal(Env{Tools: host, Task: task}, own)
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	if strings.Join(names, " ") != "search lookup finish hotpot_finish" {
		t.Fatalf("tools %v", names)
	}
	for i, b := range builtin {
		if got[i].Description != b.Description || string(got[i].Schema()) != string(b.Schema()) || got[i].External() || got[i].Final != b.Final {
			t.Errorf("tool %d: %+v, want the task's %+v", i, got[i], b)
		}
	}
	ctx := context.Background()
	res, err := got[1].Call(ctx, json.RawMessage(`{"Keyword": "x"}`))
	if err != nil || res.Observation != "served lookup" || res.Call == nil {
		t.Errorf("lookup: %+v %v", res, err)
	}
	if res, err := got[0].Call(ctx, json.RawMessage(`{"entity": "x"}`)); err != nil || res.Call != nil {
		t.Errorf("search went to the host: %+v %v", res, err)
	}
	if res, err := got[2].Call(ctx, json.RawMessage(`{"answer": "x"}`)); err != nil || !res.Final || res.Call != nil {
		t.Errorf("finish: %+v %v", res, err)
	}
	if strings.Join(host.calls, "|") != `lookup {"Keyword": "x"}` {
		t.Errorf("host calls %q", host.calls)
	}
}

// TestToolMetrics: an item's tool calls, the refused ones (tool_errors)
// and those its server failed (tool_failures, counted among the errors);
// actions on the task's own tools (nil) are not counted.
func TestToolMetrics(t *testing.T) {
	for _, c := range []struct {
		calls []*events.ToolCall
		want  map[string]float64
	}{
		{nil, map[string]float64{"tool_calls": 0, "tool_errors": 0, "tool_failures": 0}},
		{[]*events.ToolCall{nil, {Result: "5"}}, map[string]float64{"tool_calls": 1, "tool_errors": 0, "tool_failures": 0}},
		{[]*events.ToolCall{{Error: "unknown city"}, {Error: "no answer within 3s", ServerFailed: true}, {Error: "the server failed", ServerFailed: true}, nil},
			map[string]float64{"tool_calls": 3, "tool_errors": 3, "tool_failures": 2}},
	} {
		if got := toolMetrics(c.calls); !maps.Equal(got, c.want) {
			t.Errorf("%d calls: %v, want %v", len(c.calls), got, c.want)
		}
	}
}
