package strategies

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	simgame24 "github.com/reasonbench/reasonbench/simulator/game24"
	simhotpotqa "github.com/reasonbench/reasonbench/simulator/hotpotqa"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// TestReActOverHTTPMatchesInProcess drives react with every protocol
// through the OpenAI-compatible server on loopback and checks that the
// trajectories (tool calls with their ids and JSON arguments, reasoning
// content, observations) are the ones the in-process simulator gives for the
// same seed.
func TestReActOverHTTPMatchesInProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loopback HTTP")
	}
	model, err := sim.New(sim.Params{Skill: 0.6, Slip: 0.1, Misjudge: 0.1}, simgame24.NewResponder(), simhotpotqa.Responder{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()
	client, err := llm.NewOpenAI(llm.OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	hq, _ := hotpotqa.NewTask().Instances()
	g24, _ := game24.NewTask().Instances()
	type item struct {
		task tasks.Task
		inst tasks.Instance
	}
	var items []item
	for _, in := range hq[:6] {
		items = append(items, item{hotpotqa.NewTask(), in})
	}
	for _, in := range g24[900:903] {
		items = append(items, item{game24.NewTask(), in})
	}
	for _, protocol := range []string{"text", "json", "tools"} {
		s := newStrategy(t, "react", map[string]any{"protocol": protocol, "max_steps": 5})
		toolCalls, reasoning := 0, 0
		for _, it := range items {
			run := func(sampler llm.Sampler) (Result, []string) {
				log := &traceLog{}
				env := Env{Sampler: sampler, Task: it.task, Prompts: lib, Seed: 7, Trace: log}
				res, err := s.Solve(context.Background(), env, it.inst)
				if err != nil {
					t.Fatalf("%s %s %d: %v", protocol, it.task.Name(), it.inst.Index, err)
				}
				return res, log.steps
			}
			local, localSteps := run(model)
			remote, remoteSteps := run(client)
			if !reflect.DeepEqual(local.Detail, remote.Detail) || local.Output != remote.Output || !reflect.DeepEqual(localSteps, remoteSteps) {
				t.Errorf("%s %s item %d: over HTTP\n%+v\nin process\n%+v", protocol, it.task.Name(), it.inst.Index, remote.Detail, local.Detail)
			}
			if !reflect.DeepEqual(local.Metrics, remote.Metrics) {
				t.Errorf("%s item %d: metrics %v vs %v", protocol, it.inst.Index, remote.Metrics, local.Metrics)
			}
			tr := remote.Detail.(reading.ReActTrajectory)
			for _, st := range tr.Steps {
				for _, a := range st.Actions {
					if a.ID != "" {
						toolCalls++
					}
					if a.Invalid && a.Tool == "" { // (a tool may refuse a misread number)
						t.Errorf("%s item %d: the simulator wrote an unreadable action: %+v", protocol, it.inst.Index, a)
					}
				}
				if st.Thought != "" {
					reasoning++
				}
			}
		}
		if protocol == "tools" && toolCalls == 0 {
			t.Error("tools protocol: no tool call ids went over HTTP")
		}
		if reasoning == 0 {
			t.Errorf("%s: no thoughts recorded", protocol)
		}
	}
}
