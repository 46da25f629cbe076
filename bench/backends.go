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
		API: p.cfg.API, MaxTokensField: p.cfg.MaxTokensField, MaxN: p.cfg.MaxN})
}

// retry is the run's retry policy (--retries) as a middleware.
func (p *plan) retry() llm.Middleware {
	return llm.Retry(llm.RetryPolicy{MaxAttempts: p.cfg.Retries + 1, Base: 500 * time.Millisecond, Max: 30 * time.Second})
}

// judgeBackend is the sampler a judged task's judge calls go to: the
// run's shared sampler, or for another judge model or endpoint its own
// client (or the simulator) under the same limit and budget, costed at the
// judge's price.
func (e *Engine) judgeBackend(p *plan, shared llm.Sampler, budget *llm.Budget) (llm.Sampler, error) {
	if !usesJudge(p) || !p.cfg.SeparateJudge() {
		return shared, nil
	}
	model, baseURL := p.cfg.Judge()
	var b llm.Sampler
	if model == SimModel && baseURL == "" {
		m, err := NewSim(p.cfg.Sim)
		if err != nil {
			return nil, ConfigError{err}
		}
		b = m
	} else {
		o, err := p.clientWithKey(model, baseURL, p.cfg.judgeKey())
		if err != nil {
			return nil, ConfigError{fmt.Errorf("--judge-model/--judge-base-url: %w", err)}
		}
		est, err := estimateMissing(model)
		if err != nil {
			return nil, ConfigError{err}
		}
		b = llm.Chain(o, est, p.retry())
	}
	mws := []llm.Middleware{llm.Limit(p.concurrency()), budget.Meter()}
	if price, ok := llm.DefaultPrices().With(p.cfg.Prices).Lookup(model); ok {
		mws = append(mws, llm.CostAt(price))
	}
	return llm.Chain(b, mws...), nil
}
