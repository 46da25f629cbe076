package strategies

import (
	"context"
	"fmt"
	"slices"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// cotsc is chain-of-thought with self-consistency: k chains, one answer by
// majority vote.
type cotsc struct {
	k           int
	temperature *float64
	maxTokens   int
	voteKey     string // "" = the task's default
	context     string // context mode ("" = the task's default)
}

var cotscParams = []param.Param{
	{Name: "k", Kind: param.Int, Default: 10, Min: param.Bound(1), Max: param.Bound(10000), Show: true, Doc: "chains sampled per instance"},
	temperatureParam("temperature", 0.7, "sampling temperature of the k chains; their diversity, and so the vote, depends on it"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit (0: server default)"},
	{Name: "vote_key", Kind: param.String, Default: "", Doc: "what is voted on: game24 line|expression|canonical; hotpotqa, gsm8k and file tasks answer (the scorer's normalised answer) (empty: the task's first)"},
	contextParam,
}

func newCoTSC(v param.Values) (Strategy, error) {
	return &cotsc{k: v.Int("k"), temperature: v.Temperature("temperature"), maxTokens: v.Int("max_tokens"), voteKey: v.String("vote_key"),
		context: v.String("context")}, nil
}

// CheckTask rejects a vote key the task does not know.
func (s *cotsc) CheckTask(t tasks.Task) error {
	if s.voteKey != "" && !slices.Contains(t.VoteKeys(), s.voteKey) {
		return fmt.Errorf("parameter vote_key=%s: task %s knows %v", s.voteKey, t.Name(), t.VoteKeys())
	}
	return checkContext(t, s.context)
}

// Vote takes a majority vote over outputs under the task's vote key. Ties go
// to the answer seen first, as Python's Counter.most_common does.
func Vote(t tasks.Task, inst tasks.Instance, outputs []string, key string) reading.VoteResult {
	if key == "" {
		key = t.VoteKeys()[0]
	}
	res := reading.VoteResult{Winner: -1}
	first := map[string]int{}
	var order []string
	counts := map[string]int{}
	res.Keys = make([]*string, len(outputs))
	for i, out := range outputs {
		k, ok := t.AnswerKey(inst, out, key)
		if !ok {
			res.Abstain++
			continue
		}
		res.Keys[i] = &k
		if _, seen := first[k]; !seen {
			first[k] = i
			order = append(order, k)
		}
		counts[k]++
	}
	for _, k := range order {
		res.Counts = append(res.Counts, reading.VoteCount{Key: k, Count: counts[k]})
	}
	slices.SortStableFunc(res.Counts, func(a, b reading.VoteCount) int { return b.Count - a.Count })
	if len(res.Counts) > 0 {
		res.Key = res.Counts[0].Key
		res.Winner = first[res.Key]
	}
	return res
}

func (s *cotsc) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	data, err := promptData(env.Task, inst, s.context)
	if err != nil {
		return Result{}, err
	}
	prompt, err := render(env, "cot", data)
	if err != nil {
		return Result{}, err
	}
	resp, err := env.Sampler.Sample(ctx, llm.Request{
		Messages: userPrompt(prompt), N: s.k, Temperature: s.temperature, MaxTokens: s.maxTokens,
		Purpose: "cotsc", Call: "cotsc",
	})
	if err != nil {
		return Result{}, err
	}
	if len(resp.Choices) == 0 {
		return Result{}, errNoChoices("cotsc")
	}
	outputs := resp.Texts()
	samples, correct := scoreSamples(env, inst, outputs)
	vote := Vote(env.Task, inst, outputs, s.voteKey)
	res := Result{
		Metrics: map[string]float64{
			"sample_accuracy": float64(correct) / float64(len(samples)),
			"best_of_k":       boolFloat(correct > 0),
		},
		Detail: reading.VotedDetail{Vote: vote, Samples: samples},
	}
	if vote.Winner >= 0 {
		res.Output = outputs[vote.Winner]
	}
	res.Score = env.Task.Score(inst, res.Output)
	res.Accuracy = boolFloat(res.Score.Correct)
	res.Metrics = mergeMetrics(res.Metrics, res.Score.Metrics) // of the voted answer
	return res, nil
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
