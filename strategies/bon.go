package strategies

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// bon is best-of-N by a verifier (search-and-learn's best_of_n): N whole
// solutions in one request (choice i drawn at seed+i), each split into
// its blank-line separated steps and scored by the verifier, one call per
// solution; select=best takes the highest aggregated score, weighted the
// answer whose solutions' scores sum highest, majority (no verifier) the
// most frequent answer, as CoT-SC. Every solution is kept with its scores
// and answer key, so any N' ≤ N and any rule can be recomputed from one
// run.
type bon struct{ ttsCommon }

var bonParams = ttsCommonParams(4, selectBest,
	"how the answer is chosen: best (highest aggregated verifier score), weighted (verifier scores summed per distinct answer), majority (most frequent answer, no verifier)")

func newBoN(v param.Values) (Strategy, error) { return &bon{newTTSCommon(v)}, nil }

// CheckTask rejects a vote key the task does not know.
func (s *bon) CheckTask(t tasks.Task) error { return s.checkTask(t) }

// NeedsVerifier implements VerifierUser: every rule but majority scores
// the samples.
func (s *bon) NeedsVerifier() string {
	if s.sel == selectMajority {
		return ""
	}
	return fmt.Sprintf("bon select=%s scores every sample with the verifier", s.sel)
}

func (s *bon) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if err := needVerifier(env, s.NeedsVerifier()); err != nil {
		return Result{}, err
	}
	prompt, err := render(env, stepsTemplate, PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	resp, err := env.Sampler.Sample(ctx, stepRequest(prompt, nil, false, s.n, s.temperature, s.maxTokens, "bon", "bon"))
	if err != nil {
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, errNoChoices("bon")
	}
	cs := make([]reading.Candidate, len(resp.Choices))
	steps := make([][]string, len(cs))
	for i, ch := range resp.Choices {
		steps[i] = splitSteps(ch.Content)
		cs[i] = reading.Candidate{Output: ch.Content, Steps: len(steps[i])}
	}
	var sc *stepScorer
	if s.NeedsVerifier() != "" {
		sc = &stepScorer{env: env, problem: inst.Input, agg: s.agg}
		err := parallel(len(cs), func(i int) error {
			var err error
			cs[i].Scores, cs[i].Score, cs[i].VerifierError, err = sc.score(ctx, fmt.Sprintf("s%d/verify", i), steps[i])
			return err
		})
		if err != nil {
			return Result{}, err
		}
	}
	return s.finish(env, inst, cs, sc, nil), nil
}
