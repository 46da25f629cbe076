// The run's backends: clients, endpoints, retries, the sandbox and the judge's.

package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/tokens"
	"github.com/reasonbench/reasonbench/sandbox"
)

// startSandbox gives a plan that runs programs its sandbox: the engine's,
// or bubblewrap, which must start here. There is no unsandboxed fall-back.
func (e *Engine) startSandbox(ctx context.Context, p *plan) error {
	if p.executes == "" || p.runner != nil {
		return nil
	}
	r := e.Sandbox
	if r == nil {
		b, err := sandbox.NewBwrap(ctx)
		if err != nil {
			return fmt.Errorf("%s, which needs the sandbox: %w", p.executes, err)
		}
		r = b
	}
	p.runner = sandbox.Limit(r, p.concurrency())
	return nil
}

func (p *plan) backend() (llm.Sampler, error) {
	if p.cfg.InProcess() {
		return NewSim(p.cfg.Sim)
	}
	var o llm.Sampler
	var reps []llm.Replica
	for _, base := range p.cfg.Endpoints() {
		c, err := p.client(p.cfg.Model, base)
		if err != nil {
			return nil, err
		}
		o = c
		reps = append(reps, llm.Replica{Name: PublicEndpoint(base), Sampler: c})
	}
	if len(reps) > 1 { // inside Retry: a failed attempt moves to another replica
		p.replicas = llm.NewReplicas(reps, llm.ReplicaOptions{})
		o = p.replicas
	}
	est, err := estimateMissing(p.cfg.Model)
	if err != nil {
		return nil, err
	}
	return llm.Chain(o, est, p.retry(), p.adaptive.Middleware()), nil // inside Retry: it sees every attempt's 429
}

// estimateMissing counts tokens locally, marked estimated, for a server
// that reports no usage, with model's tokenizer (or an approximation).
func estimateMissing(model string) (llm.Middleware, error) {
	c, err := tokens.ForModel(model)
	if err != nil {
		return nil, err
	}
	return tokens.EstimateMissing(c), nil
}

// client is an OpenAI-compatible client of model at baseURL with the
// run's key, timeout, API and token settings.
func (p *plan) client(model, baseURL string) (*llm.OpenAI, error) {
	return p.clientWithKey(model, baseURL, p.cfg.APIKey)
}

// clientWithKey is client with another key (a verifier's own endpoint's).
// Without one, a client of another endpoint than the run's sends none
// (never $OPENAI_API_KEY, the run's).
func (p *plan) clientWithKey(model, baseURL, key string) (*llm.OpenAI, error) {
	return llm.NewOpenAI(llm.OpenAIConfig{BaseURL: baseURL, APIKey: key, NoKey: key == "" && baseURL != p.cfg.BaseURL, Model: model, Timeout: p.cfg.Timeout,
		API: p.cfg.API, MaxTokensField: p.cfg.MaxTokensField, MaxN: p.cfg.MaxN, MaxResponseBytes: p.cfg.MaxResponseBytes})
}

// retry is the run's retry policy (--retries) as a middleware.
func (p *plan) retry() llm.Middleware {
	return llm.Retry(llm.RetryPolicy{MaxAttempts: p.cfg.Retries + 1, Base: 500 * time.Millisecond, Max: 30 * time.Second})
}
