package strategies

import (
	"context"
	"maps"
	"strconv"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// sampling asks one prompt k times and scores every sample independently:
// IO prompting and Chain-of-Thought differ only in their template.
type sampling struct {
	template    string // also the call's purpose
	k           int
	temperature *float64
	maxTokens   int
	context     string // context mode ("" = the task's default)
}

var samplingParams = []param.Param{
	{Name: "k", Kind: param.Int, Default: 1, Min: param.Bound(1), Max: param.Bound(10000), Show: true, Doc: "samples per instance"},
	temperatureParam("temperature", 0.7, "sampling temperature"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit (0: server default)"},
	contextParam,
}

func newSampling(template string) func(param.Values) (Strategy, error) {
	return func(v param.Values) (Strategy, error) {
		return &sampling{template: template, k: v.Int("k"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"),
			context: v.String("context")}, nil
	}
}

// CheckTask rejects a context the task does not offer.
func (s *sampling) CheckTask(t tasks.Task) error { return checkContext(t, s.context) }

// samplingDetail is what an io or cot item stores.
type samplingDetail struct {
	Samples []reading.Sample `json:"samples"`
}

func (s *sampling) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	data, err := promptData(env.Task, inst, s.context)
	if err != nil {
		return Result{}, err
	}
	prompt, err := render(env, s.template, data)
	if err != nil {
		return Result{}, err
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{
		Messages: userPrompt(prompt), N: s.k, Temperature: s.temperature, MaxTokens: s.maxTokens,
		Purpose: s.template, Call: s.template,
	})
	if err != nil {
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, errNoChoices(s.template)
	}
	samples, correct := scoreSamples(env, inst, resp.Texts())
	best := 0.0
	if correct > 0 {
		best = 1
	}
	// The first sample's verdict as scored above: scoring it again would
	// run a code task's program a second time.
	s0 := samples[0]
	first := tasks.Score{Correct: s0.Correct, Answer: s0.Answer, Reason: s0.Reason, Metrics: s0.Metrics}
	metrics := map[string]float64{"best_of_k": best}
	if _, ok := env.Task.(tasks.Coding); ok {
		maps.Copy(metrics, passMetrics(len(samples), correct))
	}
	return Result{
		Output:   samples[0].Output,
		Score:    first,
		Accuracy: float64(correct) / float64(len(samples)),
		Metrics:  mergeMetrics(metrics, meanSampleMetrics(samples)),
		Detail:   samplingDetail{Samples: samples},
	}, nil
}

// passMetrics are pass@1 and, with more than one sample, pass@n, by Chen
// et al.'s unbiased estimator (stats.PassAtK) from n samples of which c
// are correct; the run's summary averages them over items, as the paper
// does. Any task whose samples are scored correct or not can report them;
// io and cot do for programming tasks (tasks.Coding), where pass@k is the
// usual figure. pass@n of one item equals its best_of_k.
func passMetrics(n, c int) map[string]float64 {
	m := map[string]float64{"pass@1": stats.PassAtK(n, c, 1)}
	if n > 1 {
		m["pass@"+strconv.Itoa(n)] = stats.PassAtK(n, c, n)
	}
	return m
}
