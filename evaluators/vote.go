package evaluators

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/llm"
)

// Vote asks N times which candidate is best and counts the votes.
type Vote struct {
	Sampler     llm.Sampler
	N           int
	Temperature *float64 // nil: not sent, the model's default
	// Parse reads the chosen candidate (0-based) from one answer.
	Parse func(output string, n int) (int, bool)
}

// Evaluate returns each of the n candidates' vote count for prompt, and how
// many answers gave no valid vote. site names where the vote sits in the
// strategy (its call is site+"/vote").
func (v *Vote) Evaluate(ctx context.Context, site, prompt string, n int) ([]float64, int, error) {
	resp, err := v.Sampler.Sample(ctx, llm.Request{
		Messages: []llm.Message{{Role: "user", Content: prompt}}, N: v.N,
		Temperature: v.Temperature, Purpose: "vote", Call: joinCall(site, "vote"),
	})
	if err != nil {
		return nil, 0, fmt.Errorf("vote: %w", err)
	}
	counts := make([]float64, n)
	invalid := 0
	for _, c := range resp.Choices {
		if k, ok := v.Parse(c.Content, n); ok {
			counts[k]++
		} else {
			invalid++
		}
	}
	return counts, invalid, nil
}
