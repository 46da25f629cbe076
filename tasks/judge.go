package tasks

import (
	"context"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
)

// Judge is a model that scores outputs for a task (the ToT paper's
// coherency score for creative writing). Its sampler records, caches,
// counts and costs each call like any other, with purpose "judge".
type Judge struct {
	Sampler llm.Sampler
	Prompts *prompts.Library
}

// Judged is implemented by tasks whose scores need a judge model.
type Judged interface {
	// WithJudge returns the task scoring one item's outputs through j (a
	// copy: the same capabilities), and a function reporting the first
	// judge call that failed; the item fails with it.
	WithJudge(ctx context.Context, j Judge) (Task, func() error)
}
