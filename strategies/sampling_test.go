package strategies

import (
	"context"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// scripted answers every request with fixed outputs, cycling, and records
// the requests it saw.
type scripted struct {
	outputs []string
	reqs    []llm.Request
	next    int
}

func (s *scripted) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	s.reqs = append(s.reqs, req)
	var resp llm.Response
	for i := range req.Samples() {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: s.outputs[s.next%len(s.outputs)]})
		s.next++
	}
	return resp, nil
}

// testEnv solves with s behind the engine's identity middleware, so that a
// call without an identity (llm.Request.Call) fails the test that makes it;
// mws (llm.Shared, ...) sit between the two.
func testEnv(t *testing.T, s llm.Sampler, mws ...llm.Middleware) Env {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	const seed = 3
	mws = append([]llm.Middleware{llm.Identify(seed, 1)}, mws...)
	return Env{Sampler: llm.Chain(s, mws...), Task: game24.NewTask(), Prompts: lib, Seed: seed}
}

func puzzle(t *testing.T, text string) tasks.Instance {
	t.Helper()
	nums, err := game24.ParsePuzzle(text)
	if err != nil {
		t.Fatal(err)
	}
	return tasks.Instance{Index: 0, Key: text, Input: text, Data: game24.Puzzle{Numbers: nums}}
}

func TestSamplingScoresEverySample(t *testing.T) {
	t.Parallel()
	const usesThree = "Answer: (10 - 6) * (5 + 4 - 3) = 24" // uses a 3 the puzzle lacks
	outputs := []string{
		"Answer: 4 * 5 + 10 - 6 = 24",     // correct
		"Answer: (10 - 6) * (5 + 4) = 24", // value 36
		"garbage with no answer line",
		"",
		usesThree,
	}
	cases := []struct {
		strategy     string
		k            int
		wantAccuracy float64
		wantBest     float64
		wantCorrect  bool
	}{
		{"io", 5, 0.2, 1, true},
		{"cot", 5, 0.2, 1, true},
		{"io", 1, 1, 1, true},
	}
	for _, c := range cases {
		sc := &scripted{outputs: outputs}
		spec, err := Lookup(c.strategy)
		if err != nil {
			t.Fatal(err)
		}
		v, err := param.Resolve(spec.Params, map[string]any{"k": c.k})
		if err != nil {
			t.Fatal(err)
		}
		strat, _ := spec.New(v)
		res, err := strat.Solve(context.Background(), testEnv(t, sc), puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Accuracy != c.wantAccuracy || res.Metrics["best_of_k"] != c.wantBest || res.Score.Correct != c.wantCorrect {
			t.Errorf("%s k=%d: accuracy %v best %v correct %v", c.strategy, c.k, res.Accuracy, res.Metrics["best_of_k"], res.Score.Correct)
		}
		if len(sc.reqs) != 1 || sc.reqs[0].N != c.k || sc.reqs[0].Purpose != c.strategy || sc.reqs[0].Seed != llm.CallSeed(3, c.strategy) {
			t.Errorf("%s: requests %+v, want one request with n=%d", c.strategy, sc.reqs, c.k)
		}
		d := res.Detail.(samplingDetail)
		if len(d.Samples) != c.k {
			t.Errorf("%s: %d samples stored, want %d", c.strategy, len(d.Samples), c.k)
		}
	}
}
