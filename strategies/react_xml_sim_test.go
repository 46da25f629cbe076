package strategies

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/simulator"
	"github.com/reasonbench/reasonbench/strategies/action"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// TestReActXMLOnSimulator runs react protocol=xml end to end on the
// simulator over HotpotQA questions and Game of 24 puzzles beside
// protocol=json on the same items: every simulated reply is read as a
// tool call (no unreadable action), each step's thinking is recorded, and
// the accuracy is in the json protocol's range (the draws differ with the
// prompt's text, so the figures differ by sampling noise; they are
// logged).
func TestReActXMLOnSimulator(t *testing.T) {
	t.Parallel()
	model, err := simulator.New(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	hq, _ := hotpotqa.NewTask().Instances()
	g24, _ := game24.NewTask().Instances()
	for _, c := range []struct {
		task  tasks.Task
		items []tasks.Instance
	}{{hotpotqa.NewTask(), hq[:60]}, {game24.NewTask(), g24[900:960]}} {
		acc := map[string]float64{}
		for _, protocol := range []string{ProtocolJSON, ProtocolXML} {
			s := newStrategy(t, "react", map[string]any{"protocol": protocol})
			finished, thoughts, steps := 0, 0, 0
			for _, inst := range c.items {
				res, err := s.Solve(context.Background(), Env{Sampler: model, Task: c.task, Prompts: lib, Seed: 5}, inst)
				if err != nil {
					t.Fatal(err)
				}
				acc[protocol] += res.Accuracy / float64(len(c.items))
				tr := res.Detail.(reading.ReActTrajectory)
				if tr.Finished {
					finished++
				}
				for _, st := range tr.Steps {
					steps++
					if st.Thought != "" {
						thoughts++
					}
					for _, a := range st.Actions {
						if a.Invalid && a.Tool == "" {
							t.Errorf("%s %s item %d: an unreadable reply %q: %s", c.task.Name(), protocol, inst.Index, st.Reply, a.Observation)
						}
					}
				}
			}
			if protocol == ProtocolXML && (finished < len(c.items)*3/4 || thoughts != steps) {
				t.Errorf("%s xml: %d of %d trajectories finished, %d of %d steps with a thought", c.task.Name(), finished, len(c.items), thoughts, steps)
			}
		}
		t.Logf("%s, %d items: accuracy json %.3f, xml %.3f", c.task.Name(), len(c.items), acc[ProtocolJSON], acc[ProtocolXML])
		// Two standard errors of a difference of two proportions near 0.3
		// on 60 items each is about 0.17.
		if math.Abs(acc[ProtocolJSON]-acc[ProtocolXML]) > 0.17 {
			t.Errorf("%s: accuracy json %.3f, xml %.3f: not in the same range", c.task.Name(), acc[ProtocolJSON], acc[ProtocolXML])
		}
	}
}

// TestSimXMLCallsParse: what the simulated model writes as an xml call is
// what action.ParseXML reads, with its thought, and its arguments typed by
// the tool's schema.
func TestSimXMLCallsParse(t *testing.T) {
	t.Parallel()
	text := sim.XMLCall("Let me try 4 + 8.", "add", [][2]string{{"a", "4"}, {"b", "8"}})
	act, err := action.ParseXML(text, func(string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`)
	})
	if err != nil || act.Name != "add" || act.Thought != "Let me try 4 + 8." || string(act.Args) != `{"a":"4","b":8}` {
		t.Fatalf("%q read as %+v, %v", text, act, err)
	}
	if name, args, ok := sim.ReadXMLCall(text); !ok || name != "add" || len(args) != 2 || args[1] != [2]string{"b", "8"} {
		t.Errorf("read back as %s %v %v", name, args, ok)
	}
	if _, _, ok := sim.ReadXMLCall(strings.TrimSuffix(text, "\n<a>4</a>\n<b>8</b>\n</add>")); ok {
		t.Error("a call without its closing tag was read")
	}
}
