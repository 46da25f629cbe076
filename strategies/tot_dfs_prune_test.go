package strategies

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// toyFill is a fill space of letters: a state is its actions, one a line;
// the model proposes letters and judges a state by its last letter.
type toyFill struct{}

func (toyFill) Name() string                                           { return "toyfill" }
func (toyFill) Instances() ([]tasks.Instance, error)                   { return []tasks.Instance{{Key: "t"}}, nil }
func (toyFill) Score(tasks.Instance, string) tasks.Score               { return tasks.Score{} }
func (toyFill) AnswerKey(_ tasks.Instance, o, _ string) (string, bool) { return o, o != "" }
func (toyFill) VoteKeys() []string                                     { return []string{"answer"} }
func (toyFill) MaxActions() int                                        { return 3 }
func (toyFill) ProposePrompt(_ *prompts.Library, _ tasks.Instance, state string) (string, error) {
	return "propose after [" + state + "]", nil
}
func (toyFill) Proposals(out string) []tasks.Proposal {
	var ps []tasks.Proposal
	for _, f := range strings.Fields(out) {
		ps = append(ps, tasks.Proposal{Action: f, Weight: 1})
	}
	return ps
}
func (toyFill) Apply(_ tasks.Instance, state, action string) (string, bool) {
	if state == "" {
		return action, false
	}
	return state + "\n" + action, false
}
func (toyFill) Checks(_ *prompts.Library, _ tasks.Instance, state string) ([]tasks.Check, error) {
	acts := strings.Split(state, "\n")
	return []tasks.Check{{Part: "last", Prompt: "judge " + acts[len(acts)-1]}}, nil
}
func (toyFill) Verdict(out string) string { return strings.TrimSpace(out) }

// toyFillModel proposes "a b" at the root and "c" below; it judges a as
// impossible and everything else sure. It logs the states it is asked to
// extend.
type toyFillModel struct {
	mu       sync.Mutex
	proposed []string
}

func (m *toyFillModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	p := req.Messages[0].Content
	text := "sure"
	switch {
	case p == "propose after []":
		text = "a b"
	case strings.HasPrefix(p, "propose after"):
		text = "c"
	case p == "judge a":
		text = "impossible"
	}
	if strings.HasPrefix(p, "propose after") {
		m.mu.Lock()
		m.proposed = append(m.proposed, strings.TrimSuffix(strings.TrimPrefix(p, "propose after ["), "]"))
		m.mu.Unlock()
	}
	choices := make([]llm.Choice, max(1, req.N))
	for i := range choices {
		choices[i] = llm.Choice{Content: text}
	}
	return llm.Response{Choices: choices}, nil
}

// TestToTDFSPrunesImpossibleStates: with prune, a state judged impossible
// is kept in the log as pruned and never extended; without, it is.
func TestToTDFSPrunesImpossibleStates(t *testing.T) {
	t.Parallel()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, prune := range []bool{true, false} {
		m := &toyFillModel{}
		spec, _ := Lookup("tot_dfs")
		v, err := param.Resolve(spec.Params, map[string]any{"prune": prune, "n_generate": 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := spec.New(v)
		if err != nil {
			t.Fatal(err)
		}
		env := Env{Sampler: llm.Chain(m, llm.Identify(1, 1)), Task: toyFill{}, Prompts: lib, Seed: 1}
		res, err := s.Solve(context.Background(), env, tasks.Instance{Key: "t"})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Detail.(totDFSDetail)
		var pruned []string
		for _, st := range d.States {
			if st.Pruned {
				pruned = append(pruned, strings.Join(st.Actions, ","))
			}
		}
		extendedA := false
		for _, p := range m.proposed {
			if p == "a" {
				extendedA = true
			}
		}
		if prune && (strings.Join(pruned, "|") != "a" || extendedA) {
			t.Errorf("prune: pruned %q, a extended %v; want only a pruned, never extended (proposed after %q)", pruned, extendedA, m.proposed)
		}
		if !prune && (len(pruned) != 0 || !extendedA) {
			t.Errorf("no prune: pruned %q, a extended %v; want nothing pruned and a extended", pruned, extendedA)
		}
	}
}
