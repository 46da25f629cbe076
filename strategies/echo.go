package strategies

import (
	"context"

	"github.com/reasonbench/reasonbench/tasks"
)

// echo is a throw-away strategy: one call of its template, then it answers
// the input itself.
type echo struct{ temperature *float64 }

func newEcho(v Values) (Strategy, error) {
	return &echo{temperature: v.Temperature("temperature")}, nil
}

func (s *echo) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	prompt, err := render(env, "echo", PromptData{Input: inst.Input})
	if err != nil {
		return Result{}, err
	}
	if _, err := askOne(ctx, env, prompt, "echo", "echo", s.temperature, 0); err != nil {
		return Result{}, err
	}
	sc := env.Task.Score(inst, inst.Input)
	acc := 0.0
	if sc.Correct {
		acc = 1
	}
	return Result{Output: inst.Input, Score: sc, Accuracy: acc}, nil
}
