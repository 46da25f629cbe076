package strategies

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	simgame24 "github.com/reasonbench/reasonbench/simulator/game24"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// treeLog keeps the last tree traced.
type treeLog struct {
	mu    sync.Mutex
	nodes []TreeNode
}

func (l *treeLog) Tree(_ context.Context, n []TreeNode) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nodes = n
	return nil
}
func (l *treeLog) Step(context.Context, int, int, string, string) error { return nil }

func TestMCTSScriptedWorld(t *testing.T) {
	t.Parallel()
	// The scripted world of tot_test.go: the root proposes four steps (one a
	// duplicate); "6 10 20" is sure and leads to "4 20" (sure) and 24.
	w := newWorld()
	s := newStrategy(t, "mcts", map[string]any{"iterations": 5})
	log := &treeLog{}
	env := testEnv(t, w)
	env.Trace = log
	res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Score.Correct || res.Metrics["top1"] != 1 {
		t.Fatalf("not solved: %q %+v", res.Output, res.Detail)
	}
	d := res.Detail.(MCTSDetail)
	// The first rollout goes greedily 6 10 20 → 4 20 → 24 → the answer,
	// valued sure (reward 1 = solved_value), so the search stops after one
	// iteration.
	if !d.Found || d.Iterations != 1 {
		t.Errorf("found %v after %d iterations, want found in 1", d.Found, d.Iterations)
	}
	// value prompts: 3 distinct at depth 1 (one duplicate), 2, 1, 1.
	if w.calls["value"] != 7 || w.calls["propose"] != 4 {
		t.Errorf("calls %v, want 4 propose and 7 value", w.calls)
	}
	if len(log.nodes) != d.Nodes || log.nodes[0].Visits != 1 || log.nodes[d.Best].Visits != 1 {
		t.Errorf("traced %d nodes (detail %d); root visits %d", len(log.nodes), d.Nodes, log.nodes[0].Visits)
	}
	for _, n := range log.nodes {
		if n.Value < 0 || n.Value > 1 {
			t.Errorf("node %d reward %v outside [0,1]", n.ID, n.Value)
		}
	}
}

// simModel is the simulated model with both tasks' responders.
func simModel(t *testing.T) *sim.Model {
	t.Helper()
	model, err := sim.New(sim.DefaultParams(), simgame24.NewResponder())
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// TestMCTSOverHTTPMatchesInProcess runs mcts on Game of 24 puzzles with
// the simulator in process and through the OpenAI-compatible server on
// loopback: same trees, visits and answers.
func TestMCTSOverHTTPMatchesInProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("loopback HTTP")
	}
	model := simModel(t)
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
	insts, _ := game24.NewTask().Instances()
	for _, set := range []map[string]any{
		{"iterations": 4},
		{"iterations": 3, "evaluate": "vote", "generate": "sample", "n_generate": 3, "rollout": "sample", "final": "best_value"},
	} {
		s := newStrategy(t, "mcts", set)
		for _, inst := range insts[900:903] {
			run := func(sampler llm.Sampler) (Result, []TreeNode) {
				log := &treeLog{}
				res, err := s.Solve(context.Background(), Env{Sampler: sampler, Task: game24.NewTask(), Prompts: lib, Seed: 5, Trace: log}, inst)
				if err != nil {
					t.Fatalf("%v item %d: %v", set, inst.Index, err)
				}
				return res, log.nodes
			}
			local, lt := run(model)
			remote, rt := run(client)
			if local.Output != remote.Output || !reflect.DeepEqual(local.Detail, remote.Detail) || !reflect.DeepEqual(lt, rt) {
				t.Errorf("%v item %d: over HTTP %+v, in process %+v", set, inst.Index, remote.Detail, local.Detail)
			}
			if len(lt) < 2 || lt[0].Visits == 0 {
				t.Errorf("%v item %d: tree of %d nodes, root visits %v", set, inst.Index, len(lt), lt)
			}
		}
	}
}

// memCheckpoint keeps one item's checkpoint as JSON, as the store does.
type memCheckpoint struct {
	next  int
	state []byte
	saves int
	fail  int // Save number that reports an error (a kill); 0 never
	// calls, when set, is read at every successful Save into callsAt.
	calls   *int
	callsAt []int
}

func (c *memCheckpoint) Save(_ context.Context, next int, state any) error {
	c.saves++
	if c.fail > 0 && c.saves == c.fail {
		return context.Canceled
	}
	b, err := json.Marshal(state)
	if err != nil {
		return err
	}
	c.next, c.state = next, b
	if c.calls != nil {
		c.callsAt = append(c.callsAt, *c.calls)
	}
	return nil
}

func (c *memCheckpoint) Load(_ context.Context, state any) (int, bool, error) {
	if c.state == nil {
		return 0, false, nil
	}
	return c.next, true, json.Unmarshal(c.state, state)
}

func TestMCTSResumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	model := simModel(t)
	lib, _ := prompts.Bundled()
	insts, _ := game24.NewTask().Instances()
	s := newStrategy(t, "mcts", map[string]any{"iterations": 6, "solved_value": 2, "rollout": "sample"})
	inst := insts[910]
	solve := func(cp Checkpointer, sampler llm.Sampler) (Result, []TreeNode, error) {
		log := &treeLog{}
		res, err := s.Solve(context.Background(), Env{Sampler: sampler, Task: game24.NewTask(), Prompts: lib, Seed: 2, Trace: log, Checkpoint: cp}, inst)
		return res, log.nodes, err
	}
	count := func() (llm.Sampler, *int) {
		n := 0
		var mu sync.Mutex
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			mu.Lock()
			n++
			mu.Unlock()
			return model.Sample(ctx, req)
		}), &n
	}
	wholeS, wholeN := count()
	whole, wholeTree, err := solve(&memCheckpoint{}, wholeS)
	if err != nil {
		t.Fatal(err)
	}
	// Killed while saving after iteration 4: the checkpoint holds 3.
	firstS, firstN := count()
	cp := &memCheckpoint{fail: 4, calls: firstN}
	if _, _, err := solve(cp, firstS); err == nil {
		t.Fatal("the kill was not reported")
	}
	if cp.next != 3 || len(cp.callsAt) != 3 {
		t.Fatalf("checkpoint at iteration %d, want 3", cp.next)
	}
	restS, restN := count()
	resumed, resumedTree, err := solve(cp, restS)
	if err != nil {
		t.Fatal(err)
	}
	if resumed.Output != whole.Output || !reflect.DeepEqual(resumed.Detail, whole.Detail) || !reflect.DeepEqual(resumedTree, wholeTree) {
		t.Errorf("resumed %+v\nuninterrupted %+v", resumed.Detail, whole.Detail)
	}
	// The calls of iterations 1..3 (before the checkpoint) plus the resumed
	// item's are the uninterrupted item's: the value cache came back with
	// the checkpoint, nothing is asked twice.
	if kept := cp.callsAt[2]; kept+*restN != *wholeN || *restN == 0 {
		t.Errorf("calls: %d before the checkpoint + %d resumed, uninterrupted %d", kept, *restN, *wholeN)
	}
}

func TestThoughtModesChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  map[string]any
		ok   bool
	}{
		{"tot", map[string]any{}, false},
		{"tot", map[string]any{"generate": "sample", "evaluate": "vote"}, true},
		{"mcts", map[string]any{"generate": "sample"}, false},
		{"mcts", map[string]any{"generate": "sample", "evaluate": "vote"}, true},
	} {
		err := newStrategy(t, tc.name, tc.set).(TaskChecker).CheckTask(hotpotqa.NewTask())
		if (err == nil) != tc.ok {
			t.Errorf("%s %v on hotpotqa: err = %v", tc.name, tc.set, err)
		}
		if err := newStrategy(t, tc.name, tc.set).(TaskChecker).CheckTask(game24.NewTask()); err != nil {
			t.Errorf("%s %v on game24 (every mode): %v", tc.name, tc.set, err)
		}
	}
}
