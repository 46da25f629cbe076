package strategies

import (
	"context"
	"slices"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// TestProgramEnvDropsBenchVariables: a program inherits none of bench's
// own variables (BENCH_*, in any case) nor the endpoint variables bench
// sets for it; the rest of the environment stays, in order.
func TestProgramEnvDropsBenchVariables(t *testing.T) {
	t.Parallel()
	got := programEnv([]string{"PATH=/bin", "BENCH_DB=/runs.db", "bench_binary=/bin/bench", "BENCH_REQUIRE_SANDBOX=1",
		"OPENAI_BASE_URL=http://elsewhere/v1", "openai_api_base=http://x", "LANG=C", "NOTBENCH_X=1"})
	if want := []string{"PATH=/bin", "LANG=C", "NOTBENCH_X=1"}; !slices.Equal(got, want) {
		t.Errorf("programEnv = %q, want %q", got, want)
	}
}

// TestToolMetricsCountReplayedFailures: a failed call counts in
// tool_errors whether it ran live or was replayed from the cache.
func TestToolMetricsCountReplayedFailures(t *testing.T) {
	t.Parallel()
	got := toolMetrics([]*events.ToolCall{nil, {Error: "no answer"}, {Error: "refused", Cached: true}, {Result: "ok", Cached: true}, {Result: "ok"}})
	if got["tool_calls"] != 4 || got["tool_errors"] != 2 {
		t.Errorf("toolMetrics = %v, want 4 calls, 2 errors", got)
	}
}

// TestDebateTwoAgentsDebate: two agents are a debate (each sees the
// other's answer), one alone checks its own.
func TestDebateTwoAgentsDebate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		agents int
		want   []string
	}{{2, []string{"cot", "debate"}}, {1, []string{"cot", "debate_alone"}}} {
		if got := debateTemplates(param.Values{"agents": c.agents, "rounds": 2}); !slices.Equal(got, c.want) {
			t.Errorf("agents=%d: %v, want %v", c.agents, got, c.want)
		}
	}
}

// TestDebateJudgeKeepsLastRoundMajority: with final=judge the item
// records whether the last round's majority was right, apart from the
// judge's verdict: a right majority the judge overrules gives 1.
func TestDebateJudgeKeepsLastRoundMajority(t *testing.T) {
	t.Parallel()
	const right = "Answer: 4 * 5 + 10 - 6 = 24"
	for _, c := range []struct {
		last string
		want float64
	}{{right, 1}, {"Answer: 1 + 1 = 24", 0}} {
		d := &debater{reqs: map[string]llm.Request{}, answers: map[string]string{
			"r0/a0": "Answer: A0", "r0/a1": "Answer: A1", "r1/a0": c.last, "r1/a1": c.last, "judge": "Answer: 2 + 2 = 24"}}
		s, err := newDebate(param.Values{"agents": 2, "rounds": 2, "temperature": 0.7, "max_tokens": 0, "vote_key": "", "context": "", "final": DebateJudge})
		if err != nil {
			t.Fatal(err)
		}
		env := testEnv(t, d)
		env.Judge = env.Sampler
		res, err := s.Solve(context.Background(), env, puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := res.Metrics["last_round_majority"]
		if !ok || got != c.want || res.Score.Correct {
			t.Errorf("last round %q: last_round_majority %v (present %v), correct %v; want %v", c.last, got, ok, res.Score.Correct, c.want)
		}
	}
}

// TestSharedNamespaceEvaluatedTimeout: in the shared namespace the
// evaluated implementation runs with the reference's 10 s, its tests
// with the test timeout (a 5-10 s implementation completes there).
func TestSharedNamespaceEvaluatedTimeout(t *testing.T) {
	t.Parallel()
	s := newStrategy(t, "reflexion_code", map[string]any{"test_timeout": 3.0}).(*reflexionCode)
	d := CodeDetail{Strategy: "reflexion", Tests: []string{"assert f(1) == 1", "assert f(2) == 2"},
		Iterations: []CodeIteration{{Impl: "def f(x):\n    return 1\n", Failed: []int{1}}, {Impl: "def f(x):\n    return x\n"}}, Evaluated: 1}
	steps := s.itemSteps(d)
	var timeouts []float64
	for _, st := range steps {
		timeouts = append(timeouts, st.Timeout)
	}
	// Iteration 0: two tests, the failed one's output fetched; iteration
	// 1: two tests, then the evaluated implementation.
	if want := []float64{3, 3, 3, 3, 3, 10}; !slices.Equal(timeouts, want) {
		t.Errorf("step timeouts %v, want %v", timeouts, want)
	}
	if last := steps[len(steps)-1]; last.Code != d.Iterations[1].Impl || last.Call != "" {
		t.Errorf("the evaluated step %+v", last)
	}
}
