// Model roles: each model a run calls, declared once and built by one
// function.

package bench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/verify"
)

// role is a model a run calls in one capacity: the strategy's model, the
// judge of a judged task, the verifier of bon/beam/dvts, one of debate's
// agents on a named endpoint, a simulated user. The run's model, the
// proxy's and a program strategy's endpoint are the role "model".
type role struct {
	// name says which role it is ("model", "judge", "verifier", "agent
	// SPEC"), in errors.
	name string
	// model is its name on the wire, baseURL its endpoint ("" with model
	// sim: the simulator in process), key the endpoint's key (never
	// stored; "" sends none).
	model, baseURL, key string
	// flag is the command-line flag that names the role's model, for
	// errors about its endpoint.
	flag string
	// identity is what its responses are cached under: another model or
	// endpoint is another cache.
	identity string
	// params says whether --param's model parameters join its calls: the
	// strategy's model and its agents, not a judge or a verifier, which
	// may refuse them.
	params bool
	// label, when set, names the model that answered in each response
	// (MODEL@NAME): calls of several models are told apart in the record.
	label string
	// shares says the role is the run's own model at the run's endpoint:
	// its calls go through the run's chain (one limit, one client).
	shares bool
	// client, when set, makes the role's client in place of a chat client
	// of model at baseURL (a reward model's pooling client).
	client func() (llm.Sampler, error)
	// injected, when set, answers in place of the simulator in process (an
	// engine's Backend: tests, bench estimate's counting simulator).
	injected llm.Sampler
	// run marks the run's own model: its client spreads over replicas and
	// adapts its concurrency (--concurrency auto).
	run bool
}

// runRole is the strategy's own model (and the proxy's and a program
// strategy's endpoint): the run's configuration, its key and identity;
// backend, when set, is its client made already (start and resume make it
// before the run is stored, so that a bad endpoint stores nothing).
func (p *plan) runRole(backend llm.Sampler) role {
	c := p.cfg
	return role{name: "model", model: c.Model, baseURL: c.BaseURL, key: c.APIKey, flag: "--model", identity: c.BackendIdentity(),
		params: true, injected: backend, run: true}
}

// judgeRole is a judged task's judge (creative writing's coherency).
func (p *plan) judgeRole() (role, bool) {
	if !usesJudge(p) {
		return role{}, false
	}
	c := p.cfg
	if !c.SeparateJudge() {
		return role{name: "judge", shares: true, identity: c.BackendIdentity()}, true
	}
	m, u := c.Judge()
	return role{name: "judge", model: m, baseURL: u, key: c.judgeKey(), flag: "--judge-model/--judge-base-url",
		identity: "judge " + m + " @ " + PublicEndpoint(u)}, true
}

// verifierRole is the verifier of a strategy that asks one.
func (p *plan) verifierRole(injected llm.Sampler) (role, bool) {
	if verifies(p.strategy) == "" {
		return role{}, false
	}
	model, baseURL, kind := p.cfg.Verifier()
	r := role{name: "verifier", model: model, baseURL: baseURL, key: p.verifierAPIKey(), flag: "--verifier-model/--verifier-base-url",
		identity: p.verifierIdentity()}
	switch {
	case kind == verify.LLM && !p.separateVerifier():
		r.shares = true
	case model == SimModel && baseURL == "":
		r.injected = injected // an injected simulator answers the verifier too
	case kind != verify.LLM:
		r.client = func() (llm.Sampler, error) {
			return verify.NewPooling(verify.PoolingConfig{BaseURL: baseURL, APIKey: r.key, Model: model,
				Server: p.cfg.Verify.Server, Timeout: p.cfg.Timeout})
		}
	}
	return r, true
}

// agentRoles are the models a strategy names besides the run's
// (strategies.ModelUser), by their spec MODEL[@NAME].
func (p *plan) agentRoles() ([]role, error) {
	var out []role
	for _, spec := range agentSpecs(p) {
		am, err := p.cfg.resolveModel(spec)
		if err != nil {
			return nil, err
		}
		r := role{name: "agent " + spec, model: am.model, baseURL: am.baseURL, key: am.key, flag: "model " + spec,
			params: true, label: spec, identity: "agent " + am.model + " @ " + PublicEndpoint(am.baseURL)}
		if am.model == p.cfg.Model && am.baseURL == p.cfg.BaseURL {
			r.shares, r.identity = true, p.cfg.BackendIdentity()
		}
		out = append(out, r)
	}
	return out, nil
}

// userRole is an episode's simulated user (tasks.Environment): the model
// --user-model names (MODEL on the run's endpoint, MODEL@NAME on a named
// one), the run's own by default. Its calls are told apart by their
// purpose "user" and identities; --param does not join them (τ-bench sends
// its user simulator no sampling parameters).
func (p *plan) userRole() (role, bool, error) {
	if _, ok := p.task.(tasks.Environment); !ok {
		return role{}, false, nil
	}
	c := p.cfg
	r := role{name: "user", model: c.Model, baseURL: c.BaseURL, key: c.APIKey, flag: "--user-model"}
	if c.UserModel != "" {
		am, err := c.resolveModel(c.UserModel)
		if err != nil {
			return role{}, false, fmt.Errorf("--user-model: %w", err)
		}
		r.model, r.baseURL, r.key = am.model, am.baseURL, am.key
		if strings.Contains(c.UserModel, "@") {
			r.label = c.UserModel
		}
	}
	if r.model == c.Model && r.baseURL == c.BaseURL {
		r.shares, r.identity = true, c.BackendIdentity()
	} else {
		r.identity = "user " + r.model + " @ " + PublicEndpoint(r.baseURL)
	}
	return r, true, nil
}

// userKey is the user role in a run's config key: "" for the run's own
// model.
func (p *plan) userKey() string {
	r, ok, err := p.userRole()
	if !ok || err != nil || r.shares {
		return ""
	}
	return r.model + " @ " + PublicEndpoint(r.baseURL)
}

// roles lists every role the plan's run calls: the run's model on backend
// (nil: made here), the others, with injected (an engine's Backend) in
// place of a simulator in process where that stands in.
func (p *plan) roles(backend, injected llm.Sampler) ([]role, error) {
	out := []role{p.runRole(backend)}
	if r, ok := p.judgeRole(); ok {
		out = append(out, r)
	}
	if r, ok := p.verifierRole(injected); ok {
		out = append(out, r)
	}
	if r, ok, err := p.userRole(); err != nil {
		return nil, err
	} else if ok {
		out = append(out, r)
	}
	agents, err := p.agentRoles()
	if err != nil {
		return nil, err
	}
	return append(out, agents...), nil
}

// roleChain builds a role's shared chain: its backend (the run's chain
// when it shares the run's model; else the simulator, or its client with
// local token counts for a server that reports none and the run's
// retries), then its label, the run's concurrency limit, the run's budget
// and its cost at the role's price. Every role's calls pass the limit, the
// meter and the cost: TestEveryRoleIsLimitedMeteredAndCosted.
func (p *plan) roleChain(r role, shared llm.Sampler, budget *llm.Budget) (llm.Sampler, error) {
	if r.shares {
		if r.label != "" {
			return llm.Chain(shared, labelModel(r.label)), nil
		}
		return shared, nil
	}
	secrets.Process.Add(r.key)
	b, err := p.roleBackend(r)
	if err != nil {
		return nil, ConfigError{err}
	}
	mws := []llm.Middleware{redactResponses}
	if r.label != "" {
		mws = append(mws, labelModel(r.label))
	}
	mws = append(mws, llm.Limit(p.concurrency()), budget.Meter())
	if price, ok := llm.DefaultPrices().With(p.cfg.Prices).Lookup(r.model); ok {
		mws = append(mws, llm.CostAt(price))
	}
	return llm.Chain(b, mws...), nil
}

// roleBackend is what answers a role's calls, before the run's limit.
func (p *plan) roleBackend(r role) (llm.Sampler, error) {
	if r.injected != nil {
		return r.injected, nil
	}
	if r.model == SimModel && r.baseURL == "" {
		return NewSim(p.cfg.Sim)
	}
	if r.run {
		return p.backend()
	}
	var c llm.Sampler
	var err error
	if r.client != nil {
		c, err = r.client()
	} else {
		c, err = p.clientWithKey(r.model, r.baseURL, r.key)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.flag, err)
	}
	est, err := estimateMissing(r.model)
	if err != nil {
		return nil, err
	}
	return llm.Chain(c, est, p.retry()), nil
}

// builtRole is a role with its shared chain, while the run executes.
type builtRole struct {
	role
	chain llm.Sampler
}

// buildRoles builds every role of the plan: the run's model first, whose
// chain the roles that share it use.
func (p *plan) buildRoles(backend, injected llm.Sampler, budget *llm.Budget) ([]builtRole, error) {
	rs, err := p.roles(backend, injected)
	if err != nil {
		return nil, ConfigError{err}
	}
	var shared llm.Sampler
	out := make([]builtRole, 0, len(rs))
	for _, r := range rs {
		c, err := p.roleChain(r, shared, budget)
		if err != nil {
			return nil, err
		}
		if r.run {
			shared = c
		}
		out = append(out, builtRole{role: r, chain: c})
	}
	return out, nil
}

// itemStack is a role's sampler stack for one item, over its shared chain:
// every call gated by the run's budget, given --param's model parameters
// (roles that take them), identified, recorded in the item's log, shared
// where the method declares it (share, the strategy's own calls) and
// cached under the role's identity.
func (p *plan) itemStack(r builtRole, budget *llm.Budget, identify, record, share llm.Middleware, cache llm.ResponseCache) llm.Sampler {
	mws := []llm.Middleware{budget.Gate()}
	if r.params {
		mws = append(mws, llm.WithExtra(p.cfg.ModelParams))
	}
	mws = append(mws, identify, record, p.think)
	if share != nil {
		mws = append(mws, share)
	}
	mws = append(mws, llm.Cache(cache, p.cfg.Cache, r.identity))
	return llm.Chain(r.chain, mws...)
}

// agentSpecs are the models a strategy names (strategies.ModelUser).
func agentSpecs(p *plan) []string {
	mu, ok := p.strategy.(strategies.ModelUser)
	if !ok {
		return nil
	}
	var out []string
	for _, m := range mu.AgentModels() {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
