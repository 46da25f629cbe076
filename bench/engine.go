package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/llm/tokens"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
)

// Progress is reported after every finished item.
type Progress struct {
	Done, Total      int
	Accuracy         float64 // mean over the items done
	PromptTokens     int
	CompletionTokens int
	Calls            int
	Elapsed          time.Duration
	Limit            int // current adaptive concurrency limit (--concurrency auto); 0 otherwise
	// Replicas are the calls each replica served so far (several
	// --base-url); nil otherwise.
	Replicas []llm.ReplicaStat
}

// Engine runs configurations against a store.
type Engine struct {
	Store *store.Store
	// Backend, when set, replaces the sampler the config would build (tests
	// use it to inject scripted samplers).
	Backend llm.Sampler
	// OnProgress, when set, is called after every item (from one goroutine
	// at a time).
	OnProgress func(Progress)
	// Sandbox, when set, replaces the bubblewrap sandbox a run that
	// executes programs would start (tests inject failing runners).
	Sandbox sandbox.Runner
}

// plan is a validated, loaded configuration.
type plan struct {
	cfg       Config
	task      tasks.Task
	params    strategies.Values
	strategy  strategies.Strategy
	instances []tasks.Instance
	rng       tasks.Range
	prompts   *prompts.Library
	adaptive  *llm.Adaptive  // --concurrency auto; nil otherwise
	replicas  *llm.Replicas  // several --base-url replicas; nil otherwise
	think     llm.Middleware // --think: split thinking blocks from the content, or keep them
	tags      llm.ThinkTags
	// calls is how a run's calls are told apart: CallsByIdentity, or ""
	// for a run recorded before calls had identities (resumed as it began).
	calls  string
	shared llm.Middleware // the run's declared sharing (llm.Shared)
	scope  int64          // the run's draw scope (drawScope), item seeds derive from it
	// executes says why the run runs model-written programs ("" when it
	// runs none); runner is its sandbox, bounded by --concurrency.
	executes string
	runner   sandbox.Runner
	// verifier is the verifier's backend (verifierBackend) while the run
	// executes; nil when the strategy asks none.
	verifier llm.Sampler
	// sources are the files of a strategy whose code lives outside this
	// build (strategies.Sourced), path → SHA-256, read once at load.
	sources map[string]string
	// agents are the backends of the models a strategy names besides the
	// run's (strategies.ModelUser), by name, while the run executes.
	agents map[string]agentBackend
	// tools are the run's connected MCP servers while it executes; nil
	// without --mcp.
	tools *tools.Set
	// served is what the run's endpoint lists (GET /models, probe.go);
	// simAt the parameters of each endpoint that is bench serve-sim (""
	// the run's own, else the --endpoint name).
	served *Served
	simAt  map[string]sim.Params
}

// CallsByIdentity marks runs whose calls each draw by their identity
// (llm.Request.Call): the seed sent is derived from the item's seed and the
// identity, and only calls a method declares shared are one draw for the
// run. Runs recorded before it sent every call of an item with the item's
// seed, so identical requests of an item were one draw.
const CallsByIdentity = "identity"

func load(cfg Config) (*plan, error) {
	registerKeys(cfg)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spec, err := strategies.Lookup(cfg.Strategy)
	if err != nil {
		return nil, err
	}
	params, err := strategies.Resolve(spec.Params, cfg.Params)
	if err != nil {
		return nil, fmt.Errorf("strategy %s: %w", spec.Name, err)
	}
	strat, err := spec.New(params)
	if err != nil {
		return nil, fmt.Errorf("strategy %s: %w", spec.Name, err)
	}
	task, err := OpenTask(cfg.Task, cfg.TaskSpec, cfg.Rule)
	if err != nil {
		return nil, err
	}
	if err := checkTools(cfg, spec.Name, strat); err != nil {
		return nil, err
	}
	if tc, ok := strat.(strategies.TaskChecker); ok {
		if err := tc.CheckTask(task); err != nil {
			return nil, fmt.Errorf("strategy %s: %w", spec.Name, err)
		}
	}
	if co, ok := strat.(strategies.ChatOnly); ok && cfg.API == llm.APICompletions {
		if why := co.NeedsChat(); why != "" {
			return nil, fmt.Errorf("strategy %s needs --api chat: %s, which the completions API (one prompt per request) cannot carry", spec.Name, why)
		}
	}
	tags, err := llm.ParseThinkTags(cfg.ThinkTags)
	if err != nil {
		return nil, fmt.Errorf("--think-tags: %w", err)
	}
	think, err := llm.Think(cfg.Think, tags)
	if err != nil {
		return nil, err
	}
	all, err := task.Instances()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", task.Name(), err)
	}
	rng, err := tasks.ParseRange(cfg.Range, len(all))
	if err != nil {
		return nil, err
	}
	promptDir := cfg.PromptDir
	if promptDir == "" {
		promptDir = promptDirOf(task) // a file task's spec may name one
	}
	lib, err := prompts.WithOverrides(promptDir)
	if err != nil {
		return nil, err
	}
	insts, err := selectShard(tasks.Select(all, rng), rng, cfg.Shard)
	if err != nil {
		return nil, err
	}
	p := &plan{cfg: cfg, task: task, params: params, strategy: strat,
		instances: insts, rng: rng, prompts: lib, think: think, tags: tags,
		calls: CallsByIdentity, shared: llm.Shared()}
	p.scope = p.drawScope()
	if src, ok := strat.(strategies.Sourced); ok {
		if p.sources, err = src.Sources(); err != nil {
			return nil, err
		}
	}
	p.executes = executes(task, strat)
	if cfg.ConcurrencyAuto {
		p.adaptive = llm.NewAdaptive(llm.AdaptiveOptions{Start: cfg.Concurrency, Max: cfg.ConcurrencyMax})
	}
	return p, nil
}

// executes says why a run of strat on task runs model-written programs, or
// "" when it runs none.
func executes(task tasks.Task, strat strategies.Strategy) string {
	if su, ok := strat.(strategies.SandboxUser); ok {
		if why := su.NeedsSandbox(); why != "" {
			return why
		}
	}
	if _, ok := task.(tasks.Executed); ok {
		return "task " + task.Name() + " scores outputs by running them"
	}
	return ""
}

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

// ConfigError marks a configuration that cannot run (unknown task, bad
// parameter, bad range, ...): the user's to fix, before anything is stored.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string { return e.Err.Error() }
func (e ConfigError) Unwrap() error { return e.Err }

// Check validates a configuration without running it.
func Check(cfg Config) error {
	p, err := load(cfg)
	if err == nil {
		err = checkNew(p)
	}
	if err != nil {
		return ConfigError{err}
	}
	return nil
}

// checkNew rejects what a new run may not ask for but a stored run's
// configuration (resumed as it was) may hold: judge flags on a task no
// judge scores, which would otherwise be recorded and silently unused.
func checkNew(p *plan) error {
	if !usesJudge(p) && (p.cfg.JudgeModel != "" || p.cfg.JudgeBaseURL != "") {
		return fmt.Errorf("--judge-model/--judge-base-url: task %s has no judge (creative does); drop them", p.task.Name())
	}
	if o, ok := p.strategy.(strategies.Ordered); ok && p.cfg.Shard != nil && o.InOrder() != "" {
		return fmt.Errorf("--shard: %s, so each item depends on the items before it, which another shard solves; run it unsharded", o.InOrder())
	}
	if err := checkVerifier(p); err != nil {
		return err
	}
	if err := checkAgents(p); err != nil {
		return err
	}
	return checkTemplates(p)
}

// usesJudge reports whether the run asks the judge role: a judged task
// (creative) or a strategy that does (debate's final=judge).
func usesJudge(p *plan) bool {
	if _, ok := p.task.(tasks.Judged); ok {
		return true
	}
	ju, ok := p.strategy.(strategies.JudgeUser)
	return ok && ju.UsesJudge()
}

// checkTemplates refuses a run whose task lacks a template its strategy
// declares (Spec.Templates), resolved as rendering resolves it, so a
// missing one is not found item by item after the run is stored.
func checkTemplates(p *plan) error {
	spec, err := strategies.Lookup(p.cfg.Strategy)
	if err != nil || spec.Templates == nil {
		return err
	}
	for _, name := range spec.Templates(p.params) {
		full := tasks.TemplateName(p.prompts, p.task, name)
		if _, ok := p.prompts.Text(full); !ok {
			return fmt.Errorf("strategy %s on task %s needs template %s (prompts/%s.txt or --prompts DIR)",
				spec.Name, p.task.Name(), full, full)
		}
	}
	return nil
}

// drawScope is the seed of a run's draws: the run's seed and the method
// it runs (task and data, strategy and typed parameters, prompts). Two
// configurations are two sets of draws, so two runs in one database share
// no answer through the cache unless they are the same method (a rerun);
// how the model is reached (endpoint, API, replicas, concurrency), the
// item range and a shard are left out, so a sharded run, a sub-range and a
// run over HTTP draw what the whole run in process draws.
func (p *plan) drawScope() int64 {
	key := struct {
		Seed                 int64
		Task, Data, Strategy string
		Params               strategies.Values
		Prompts              string
	}{Seed: p.cfg.Seed, Task: p.task.Name(), Strategy: p.cfg.Strategy, Params: p.params, Prompts: p.prompts.Pack()}
	if d := datasetOf(p.task); d != nil {
		key.Data = d.SHA256
	}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return int64(binary.LittleEndian.Uint64(sum[:8]) >> 1)
}

// configKey hashes what determines a run's results: two configurations
// with the same key are the same experiment cell (concurrency, timeouts,
// retries and the cache mode do not change results and are left out).
func (p *plan) configKey() string {
	c := p.cfg
	key := struct {
		Task, Strategy, Range, Model, Endpoint, Prompts string
		Params                                          strategies.Values
		Seed                                            int64
		Sim                                             any
		// Empty for the task's default rule and the bundled prompts, so
		// keys of runs made before they were recorded stay the same.
		Rule string `json:",omitempty"`
		Pack string `json:",omitempty"`
		// Empty for the chat API, no model parameters and thinking split
		// at <think>, for the same reason.
		API         string                     `json:",omitempty"`
		ModelParams map[string]json.RawMessage `json:",omitempty"`
		Think       string                     `json:",omitempty"`
		// A file task's data and spec digests: the same path with other
		// contents is another cell.
		Data string `json:",omitempty"`
		// How calls draw: runs from before identities have none.
		Calls string `json:",omitempty"`
		// A shard's part of the range (shard.go); empty when unsharded.
		Shard string `json:",omitempty"`
		// A judge other than the run's model or endpoint.
		Judge string `json:",omitempty"`
		// The verifier of a strategy that asks one (verifier.go).
		Verifier string `json:",omitempty"`
		// The named endpoints a strategy's models are on (endpoints.go).
		Endpoints []string `json:",omitempty"`
		// The digest of a program's files (strategies.Sourced): an edited
		// script is another cell, though its draws (the scope) are the
		// same, so requests it still sends are found in the cache.
		Sources string `json:",omitempty"`
		// The run's MCP servers and their tool lists (tools.go).
		Tools string `json:",omitempty"`
	}{Tools: toolsKey(c.MCP), Verifier: p.verifierKey(), Calls: p.calls, Task: c.Task, Strategy: c.Strategy, Range: p.rng.String(), Model: c.Model, Endpoint: PublicEndpoint(c.BaseURL),
		Prompts: c.PromptDir, Params: p.params, Seed: c.Seed, ModelParams: c.ModelParams}
	if d := datasetOf(p.task); d != nil && d.Path != "" {
		key.Data = d.SHA256 + " " + d.SpecSHA256
	}
	if c.API == llm.APICompletions {
		key.API = c.API
	}
	if c.SeparateJudge() {
		m, u := c.Judge()
		key.Judge = m + " @ " + PublicEndpoint(u)
	}
	for _, e := range c.NamedEndpoints {
		key.Endpoints = append(key.Endpoints, e.Name+"="+PublicEndpoint(e.URL))
	}
	if c.Think == llm.ThinkKeep {
		key.Think = c.Think
	} else if p.tags != llm.DefaultThinkTags {
		key.Think = p.tags.String()
	}
	if c.Rule != "" {
		key.Rule = tasks.RuleName(p.task)
	}
	if pack := p.prompts.Pack(); pack != prompts.BundledPack {
		key.Pack = pack
	}
	if c.Simulated() {
		key.Sim = c.Sim
	}
	if c.Shard != nil {
		key.Shard = fmt.Sprintf("%d/%d", c.Shard.Part, c.Shard.Count)
	}
	if len(p.sources) > 0 {
		b, _ := json.Marshal(p.sources)
		sum := sha256.Sum256(b)
		key.Sources = hex.EncodeToString(sum[:12])
	}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// RunExperiment runs every configuration of an experiment, continuing what
// an earlier invocation left: finished runs are kept, unfinished ones
// resumed, missing ones started. It returns the run summaries in file order.
func (e *Engine) RunExperiment(ctx context.Context, exp Experiment, keys Keys) ([]Summary, error) {
	var out []Summary
	apiKey := keys.API
	for _, cfg := range exp.Runs {
		cfg.APIKey, cfg.VerifierAPIKey, cfg.JudgeAPIKey = keys.API, keys.Verifier, keys.Judge
		p, err := load(cfg)
		if err != nil {
			return out, ConfigError{err}
		}
		prev, found, err := e.Store.FindRun(ctx, exp.ID, p.configKey())
		if err != nil {
			return out, err
		}
		var sum Summary
		switch {
		case found && prev.Status == store.StatusDone:
			sum, err = Summarize(ctx, e.Store, prev.ID)
		case found: // under this command's ceiling and prices
			sum, err = e.ResumeWith(ctx, prev.ID, ResumeOptions{APIKey: apiKey, VerifierAPIKey: keys.Verifier, JudgeAPIKey: keys.Judge, MaxCost: &cfg.MaxCost, Prices: cfg.Prices})
		default:
			sum, err = e.start(ctx, p)
		}
		if err != nil {
			return out, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// recordedSpec is the run's spec column: everything needed to rerun it.
type recordedSpec struct {
	Config  Config            `json:"config"`
	Params  strategies.Values `json:"params"`
	Prompts map[string]string `json:"prompt_hashes"`
	// PromptPack is "bundled" or "folder:HASH" (prompts.Library.Pack).
	PromptPack string `json:"prompt_pack,omitempty"`
	// Rule is the task's scoring rule, name and description.
	Rule string `json:"rule,omitempty"`
	// Dataset names the data scored: its digest (and a file task's paths
	// and spec).
	Dataset *tasks.Dataset `json:"dataset,omitempty"`
	// Calls is CallsByIdentity; empty in runs recorded before it.
	Calls string `json:"calls,omitempty"`
	// UnshardedKey is a shard's config key without the shard: the key of
	// the run bench merge makes of the shards.
	UnshardedKey string `json:"unsharded_key,omitempty"`
	// Replicas are the endpoints that served the run and their calls.
	Replicas []llm.ReplicaStat `json:"replicas,omitempty"`
	// Sources are the files a strategy whose code lives outside this build
	// runs (strategies.Sourced: a program's script), path → SHA-256.
	Sources map[string]string `json:"sources,omitempty"`
	// SimEndpoints are the parameters of each endpoint that was bench
	// serve-sim ("run" for the run's own, else the --endpoint name).
	SimEndpoints map[string]sim.Params `json:"sim_endpoints,omitempty"`
}

// unshardedKey is the config key of the whole run a shard is part of.
func (p *plan) unshardedKey() string {
	whole := *p
	whole.cfg.Shard = nil
	return whole.configKey()
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

// concurrency is the bound on items and calls in flight: with --concurrency
// auto its ceiling, the adaptive limit (inside Retry) doing the rest.
func (p *plan) concurrency() int {
	if p.cfg.ConcurrencyAuto {
		return p.cfg.ConcurrencyMax
	}
	return p.cfg.Concurrency
}

// Run executes cfg as a new run and returns its summary. Items are stored
// as they finish; on cancellation the run is marked interrupted.
func (e *Engine) Run(ctx context.Context, cfg Config) (Summary, error) {
	p, err := load(cfg)
	if err != nil {
		return Summary{}, ConfigError{err}
	}
	return e.start(ctx, p)
}

// start records a new run for a loaded plan and executes it.
func (e *Engine) start(ctx context.Context, p *plan) (Summary, error) {
	if err := checkNew(p); err != nil {
		return Summary{}, ConfigError{err}
	}
	if err := e.startSandbox(ctx, p); err != nil {
		return Summary{}, ConfigError{err}
	}
	if err := e.startTools(ctx, p, nil); err != nil {
		return Summary{}, ConfigError{err}
	}
	defer p.closeTools()
	cfg := p.cfg
	backend := e.Backend
	var err error
	if backend == nil {
		if backend, err = p.backend(); err != nil {
			return Summary{}, ConfigError{err}
		}
	}
	hashes := map[string]string{}
	for _, n := range p.prompts.Names() {
		hashes[n] = p.prompts.Hash(n)
		text, _ := p.prompts.Text(n)
		if err := e.Store.PutPrompt(ctx, hashes[n], n, text); err != nil {
			return Summary{}, err
		}
	}
	if err := e.served(ctx, p); err != nil {
		return Summary{}, ConfigError{err}
	}
	cfg.Range = p.rng.String()
	rs := recordedSpec{Config: cfg, Params: p.params, Prompts: hashes,
		PromptPack: p.prompts.Pack(), Rule: tasks.Rule(p.task), Dataset: datasetOf(p.task), Calls: p.calls,
		SimEndpoints: p.simEndpoints()}
	rs.Sources = p.sources
	if cfg.Shard != nil {
		rs.UnshardedKey = p.unshardedKey()
	}
	spec, _ := json.Marshal(rs)
	simulated, simParams := p.simulated()
	run := store.Run{
		Experiment: cfg.Experiment, Task: p.task.Name(), Strategy: cfg.Strategy, Params: p.params.JSON(),
		Model: cfg.Model, Endpoint: PublicEndpoint(cfg.BaseURL), Simulated: simulated, SimParams: simParams,
		Seed: cfg.Seed, Range: p.rng.String(), Spec: spec, CodeVersion: CodeVersion(), ConfigKey: p.configKey(),
	}
	id, err := e.Store.CreateRun(ctx, run)
	if err != nil {
		return Summary{}, err
	}
	return e.execute(ctx, id, p, backend, 0, 0)
}

// Resume continues an unfinished run: items already stored are kept, items
// that were in flight are redone (their partial calls, tree and steps are
// dropped first so totals count each item once). apiKey is not stored with
// runs, so the caller passes it again.
func (e *Engine) Resume(ctx context.Context, runID int64, apiKey string) (Summary, error) {
	return e.ResumeWith(ctx, runID, ResumeOptions{APIKey: apiKey})
}

// Keys are the credentials a run is given, never stored: the run's
// endpoint's, and a verifier's on another endpoint.
type Keys struct {
	API, Verifier, Judge string
}

// ResumeOptions changes how a run continues.
type ResumeOptions struct {
	APIKey string
	// VerifierAPIKey is the key of a verifier on its own endpoint.
	VerifierAPIKey string
	// JudgeAPIKey is the key of a judge on its own endpoint.
	JudgeAPIKey string
	// BaseURL, when set, is where the run's model is now served (the
	// endpoint is where calls go, not what they are: a run moved to
	// another replica continues); Endpoints likewise re-point named
	// endpoints (by name) and NamedKeys are their keys.
	BaseURL string
	// EnvBaseURL is $OPENAI_BASE_URL: where a run that has an endpoint
	// goes when BaseURL is not given (a simulated run stays in process).
	EnvBaseURL string
	Endpoints  []Endpoint
	NamedKeys  map[string]string
	// MaxCost, when set, replaces the run's recorded ceiling (0: none).
	MaxCost *float64
	// Prices, when set, replaces the run's recorded price overrides.
	Prices llm.Prices
}

// ResumeWith is Resume with options.
func (e *Engine) ResumeWith(ctx context.Context, runID int64, o ResumeOptions) (Summary, error) {
	apiKey := o.APIKey
	run, err := e.Store.GetRun(ctx, runID)
	if err != nil {
		return Summary{}, ConfigError{err}
	}
	if run.Status == store.StatusDone {
		return Summarize(ctx, e.Store, runID)
	}
	if run.Task == ProxyTask && run.Strategy == ProxyStrategy {
		return Summary{}, ConfigError{fmt.Errorf("run %d is a bench proxy session whose process ended without finishing it: its calls were stored as they arrived and there is nothing to redo (bench proxy again with the same --name replays requests it repeats)", runID)}
	}
	var spec recordedSpec
	if err := json.Unmarshal(run.Spec, &spec); err != nil {
		return Summary{}, fmt.Errorf("run %d: unreadable spec: %w", runID, err)
	}
	cfg := spec.Config
	cfg.APIKey, cfg.VerifierAPIKey, cfg.JudgeAPIKey = apiKey, o.VerifierAPIKey, o.JudgeAPIKey
	if err := cfg.moveEndpoints(o); err != nil {
		return Summary{}, ConfigError{err}
	}
	if o.MaxCost != nil {
		cfg.MaxCost = *o.MaxCost
	}
	if o.Prices != nil {
		cfg.Prices = o.Prices
	}
	if cfg.Cache == "" {
		cfg.Cache = llm.CacheReadWrite
	}
	if d := spec.Dataset; d != nil && d.Path != "" && IsFileTask(cfg.Task) {
		// The files the run read, wherever this command runs from.
		cfg.Task, cfg.TaskSpec = FileTaskPrefix+d.Path, d.Spec
	}
	p, err := load(cfg)
	if err != nil {
		return Summary{}, ConfigError{fmt.Errorf("run %d: %w", runID, err)}
	}
	p.calls = spec.Calls
	if err := sameData(spec.Dataset, datasetOf(p.task)); err != nil {
		return Summary{}, ConfigError{fmt.Errorf("run %d: %w", runID, err)}
	}
	if spec.Sources != nil {
		for path, h := range spec.Sources {
			if now := p.sources[path]; now != h {
				return Summary{}, ConfigError{fmt.Errorf("run %d: %s changed since the run started (sha256 %.12s, now %.12s); resuming would mix two versions of the program (restore it, or start a new run)", runID, path, h, now)}
			}
		}
	}
	for name, h := range spec.Prompts {
		if p.prompts.Hash(name) != h {
			return Summary{}, ConfigError{fmt.Errorf("run %d: prompt %s changed since the run started; resuming would mix prompts (start a new run)", runID, name)}
		}
	}
	backend := e.Backend
	if backend == nil {
		if backend, err = p.backend(); err != nil {
			return Summary{}, ConfigError{err}
		}
	}
	if err := e.startSandbox(ctx, p); err != nil {
		return Summary{}, ConfigError{fmt.Errorf("run %d: %w", runID, err)}
	}
	if err := e.startTools(ctx, p, spec.Config.MCP); err != nil {
		return Summary{}, ConfigError{fmt.Errorf("run %d: %w", runID, err)}
	}
	defer p.closeTools()
	done, err := e.Store.ItemIndexes(ctx, runID)
	if err != nil {
		return Summary{}, err
	}
	// The ceiling counts what the run has paid for so far, the partial
	// calls of items about to be redone included.
	spent, err := e.spent(ctx, runID)
	if err != nil {
		return Summary{}, err
	}
	if err := e.Store.DropIncomplete(ctx, runID); err != nil {
		return Summary{}, err
	}
	var todo []tasks.Instance
	for _, inst := range p.instances {
		if !done[inst.Index] {
			todo = append(todo, inst)
		}
	}
	p.instances = todo
	if err := e.Store.MarkRunning(ctx, runID); err != nil {
		return Summary{}, err
	}
	if cfg.MaxCost != 0 || o.MaxCost != nil || o.Prices != nil {
		// Record the ceiling and prices this session runs under.
		spec.Config.MaxCost, spec.Config.Prices = cfg.MaxCost, cfg.Prices
		b, _ := json.Marshal(spec)
		if err := e.Store.SetRunSpec(ctx, runID, b); err != nil {
			return Summary{}, err
		}
	}
	return e.execute(ctx, runID, p, backend, run.WallSeconds, spent)
}

// spent is what a run's calls that reached the model cost (cache hits
// replay an earlier call's cost and are free).
func (e *Engine) spent(ctx context.Context, runID int64) (float64, error) {
	t, err := e.Store.Totals(ctx, runID)
	if err != nil {
		return 0, err
	}
	c, err := e.Store.CacheSavings(ctx, runID)
	if err != nil {
		return 0, err
	}
	return t.Cost - c.Cost, nil
}

// execute solves the plan's instances into run id and finishes the run;
// priorWall is the wall time of earlier sessions of the same run, spent
// their cost.
func (e *Engine) execute(ctx context.Context, id int64, p *plan, backend llm.Sampler, priorWall, spent float64) (Summary, error) {
	start := time.Now()
	budget := llm.NewBudget(p.cfg.MaxCost, spent)
	mws := []llm.Middleware{llm.Limit(p.concurrency()), budget.Meter()}
	if price, ok := p.cfg.Price(); ok {
		mws = append(mws, llm.CostAt(price))
	}
	shared := llm.Chain(backend, mws...)
	judge, err := e.judgeBackend(p, shared, budget)
	if err != nil {
		return Summary{}, err
	}
	if p.verifier, err = e.verifierBackend(p, shared, budget); err != nil {
		return Summary{}, err
	}
	if p.agents, err = e.agentBackends(p, shared, budget); err != nil {
		return Summary{}, err
	}
	runErr := e.solveAll(ctx, id, p, shared, judge, budget)
	if err := e.recordReplicas(context.WithoutCancel(ctx), id, p); err != nil && runErr == nil {
		runErr = err
	}
	status, msg := store.StatusDone, ""
	switch {
	case errors.Is(runErr, llm.ErrMaxCost):
		status, msg = store.StatusStopped, runErr.Error()
	case runErr != nil && ctx.Err() != nil:
		status, msg = store.StatusInterrupted, "interrupted"
	case runErr != nil:
		if pe, ok := llm.RejectedParam(runErr); ok {
			runErr = rejection(p, pe)
		}
		runErr = explainNotServed(p, runErr)
		status, msg = store.StatusFailed, runErr.Error()
	}
	wall := time.Since(start) + time.Duration(priorWall*float64(time.Second))
	if err := e.Store.FinishRun(context.WithoutCancel(ctx), id, status, wall, redact(msg)); err != nil {
		return Summary{}, err
	}
	sum, err := Summarize(context.WithoutCancel(ctx), e.Store, id)
	if err != nil {
		return Summary{}, err
	}
	if runErr != nil {
		return sum, fmt.Errorf("run %d %s: %w", id, status, runErr)
	}
	return sum, nil
}

// ItemSeed is the seed sent with an item's requests: derived from the run's
// seed and the item, so that puzzles sample independently (identical
// prompts in two puzzles are two samples, not one) while a rerun with the
// same run seed repeats itself exactly. It stays below 2^30 so that seed+i
// fits the 32-bit seeds some servers use.
func ItemSeed(runSeed int64, index int) int64 {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(runSeed))
	binary.LittleEndian.PutUint64(b[8:], uint64(index))
	h.Write(b[:])
	return int64(h.Sum64() % (1 << 30))
}

// itemRecorder collects an item's calls in its log, which solveOne stores
// when the item ends (and itemCheckpoint at each checkpoint). With eager
// set (a model over HTTP) a call the model answered is stored at once,
// with whatever the log holds: it was paid for and a killed process must
// not lose it. Cache hits, and every call of the in-process simulator
// (free and reproducible), wait for the item's end, which keeps cached
// reruns and simulated runs to one write per item.
type itemRecorder struct {
	log   *store.CallLog
	eager bool
}

func (r itemRecorder) RecordCall(ctx context.Context, c llm.CallRecord) error {
	call := store.Call{Purpose: c.Purpose, Request: c.Request, Response: c.Response,
		PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens, ReasoningTokens: c.Usage.ReasoningTokens,
		Requests: c.Usage.Requests,
		Cost:     c.Usage.Cost, Latency: c.Latency, CacheHit: c.CacheHit}
	if c.Err != nil {
		call.Error = c.Err.Error()
	}
	r.log.Add(call)
	if r.eager && !c.CacheHit {
		return r.log.Flush(ctx)
	}
	return nil
}

// solveAll solves every instance on a bounded pool. The first
// infrastructure error (an unreachable endpoint, a failing store) stops the
// run; wrong or garbled model output is never an error, only a wrong item.
//
// Once the budget is spent no item starts and items that need another call
// stop without a result (left for resume), while calls in flight finish.
func (e *Engine) solveAll(ctx context.Context, runID int64, p *plan, sampler, judge llm.Sampler, budget *llm.Budget) error {
	var (
		mu       sync.Mutex
		prog     = Progress{Total: len(p.instances)}
		accSum   float64
		started  = time.Now()
		firstErr error
		stopErr  error // the budget's, when it stopped items
	)
	workers := max(1, min(p.concurrency(), len(p.instances)))
	if o, ok := p.strategy.(strategies.Ordered); ok && o.InOrder() != "" {
		// Each item may depend on those before it: one at a time, in the
		// range's order (a pool of one takes them as given), after the
		// items a resumed run has. An item's calls still run concurrently.
		if err := e.restoreOrdered(ctx, runID, p, o); err != nil {
			return err
		}
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wp := pool.New().WithMaxGoroutines(workers).WithContext(ctx)
	for _, inst := range p.instances {
		wp.Go(func(ctx context.Context) error {
			if budget.Exhausted() {
				mu.Lock()
				defer mu.Unlock()
				stopErr = maxCostStop(budget)
				return nil
			}
			it, err := e.solveOne(ctx, runID, p, sampler, judge, budget, inst)
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(err, llm.ErrMaxCost) {
				stopErr = maxCostStop(budget)
				return nil
			}
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				cancel()
				return nil
			}
			prog.Done++
			accSum += it.Score
			prog.Accuracy = accSum / float64(prog.Done)
			prog.PromptTokens += it.PromptTokens
			prog.CompletionTokens += it.CompletionTokens
			prog.Calls += it.Calls
			prog.Elapsed = time.Since(started)
			prog.Limit = p.adaptive.Limit()
			prog.Replicas = p.replicas.Stats()
			if e.OnProgress != nil {
				e.OnProgress(prog)
			}
			return nil
		})
	}
	_ = wp.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr == nil {
		firstErr = stopErr
	}
	return firstErr
}

// restoreOrdered gives an Ordered strategy the items the run already has.
// Solved in order, they are the range's first; anything else was not
// solved in the order the strategy's results depend on.
func (e *Engine) restoreOrdered(ctx context.Context, runID int64, p *plan, o strategies.Ordered) error {
	items, err := e.Store.Items(ctx, runID)
	if err != nil {
		return err
	}
	all, err := p.task.Instances()
	if err != nil {
		return fmt.Errorf("load %s: %w", p.task.Name(), err)
	}
	done := make([]strategies.Solved, 0, len(items))
	for _, it := range items {
		if it.Index < 0 || it.Index >= len(all) {
			return fmt.Errorf("run %d: stored item %d is not in %s", runID, it.Index, p.task.Name())
		}
		if len(p.instances) > 0 && it.Index > p.instances[0].Index {
			return fmt.Errorf("run %d: item %d is stored but not %d, and %s: the run was not solved in order, start a new one",
				runID, it.Index, p.instances[0].Index, o.InOrder())
		}
		done = append(done, strategies.Solved{Instance: all[it.Index], Detail: it.Detail})
	}
	return o.Restore(p.task, p.prompts, done)
}

// maxCostStop is the error of a run stopped by its budget.
func maxCostStop(b *llm.Budget) error { return llm.MaxCostError{Max: b.Max(), Spent: b.Spent()} }

func (e *Engine) solveOne(ctx context.Context, runID int64, p *plan, base, judgeBase llm.Sampler, budget *llm.Budget, inst tasks.Instance) (store.Item, error) {
	calls := e.Store.CallLog(runID, inst.Index)
	// Model parameters join the request before it is recorded and keyed;
	// thinking is split after the cache, which keeps responses as sent.
	// Each call's seed comes from its identity before it is recorded and
	// keyed; thinking is split after the cache, which keeps responses as
	// sent; declared sharing sits in front of the cache so that a shared
	// draw is made once whoever asks.
	seed := ItemSeed(p.scope, inst.Index)
	identify, shared := llm.Identify(seed, p.scope), p.shared
	if p.calls != CallsByIdentity {
		seed = ItemSeed(p.cfg.Seed, inst.Index)
		identify, shared = llm.Anonymous(seed), nil
	}
	// stack is the item's sampler stack over one backend, written once for
	// the strategy's model, the judge, other models and the verifier: every
	// call gated by the budget, identified, recorded in the item's log and
	// cached under the backend's identity. Model parameters (--param) join
	// only the calls of the models they were given for, the strategy's and
	// its other models: the judge and the verifier are not sent them (a
	// reward model or another judge may refuse them, and adding them would
	// change recorded runs' call keys), which is intended. Declared sharing
	// applies to the strategy's own calls only.
	stack := func(b llm.Sampler, params bool, share llm.Middleware, identity string) llm.Sampler {
		mws := []llm.Middleware{budget.Gate()}
		if params {
			mws = append(mws, llm.WithExtra(p.cfg.ModelParams))
		}
		mws = append(mws, identify, llm.Record(itemRecorder{log: calls, eager: !p.cfg.InProcess()}), p.think)
		if share != nil {
			mws = append(mws, share)
		}
		mws = append(mws, llm.Cache(e.Store.ResponseCache(runID), p.cfg.Cache, identity))
		return llm.Chain(b, mws...)
	}
	sampler := stack(base, true, shared, p.cfg.BackendIdentity())
	trace := itemTrace{st: e.Store, run: runID, index: inst.Index}
	env := strategies.Env{Sampler: sampler, Task: p.task, Prompts: p.prompts, Seed: seed, Model: p.cfg.Model,
		Trace:      trace,
		Checkpoint: itemCheckpoint{itemTrace: trace, calls: calls},
		Memory:     runMemory{st: e.Store, run: runID, task: p.task.Name()}}
	if p.tools != nil {
		env.Tools = p.tools.ForItem(e.Store.ResponseCache(runID), p.cfg.ToolCache, seed, inst.Index)
	}
	execErr := func() error { return nil }
	if p.runner != nil {
		ex := itemExecutor{runner: p.runner, st: e.Store, run: runID, index: inst.Index}
		env.Exec = ex
		if et, ok := env.Task.(tasks.Executed); ok {
			env.Task, execErr = et.WithExecutor(ctx, ex)
		}
	}
	judgeErr := func() error { return nil }
	if usesJudge(p) {
		// The judge's calls join the item's log and the run's cache, under
		// the judge's own identity when it is another model.
		judgeID := p.cfg.BackendIdentity()
		if p.cfg.SeparateJudge() {
			m, u := p.cfg.Judge()
			judgeID = "judge " + m + " @ " + PublicEndpoint(u)
		}
		js := stack(judgeBase, false, nil, judgeID)
		if jt, ok := p.task.(tasks.Judged); ok {
			env.Task, judgeErr = jt.WithJudge(ctx, tasks.Judge{Sampler: js, Prompts: p.prompts})
		}
		env.Judge = js
	}
	if len(p.agents) > 0 {
		// Each model's calls join the item's log and the run's cache under
		// that model's identity.
		env.Models = map[string]llm.Sampler{}
		for name, ab := range p.agents {
			env.Models[name] = stack(ab.sampler, true, nil, ab.identity)
		}
	}
	if p.verifier != nil {
		// The verifier's calls join the item's log and the run's cache
		// under the verifier's identity.
		v, err := p.itemVerifier(stack(p.verifier, false, nil, p.verifierIdentity()))
		if err != nil {
			return store.Item{}, err
		}
		env.Verifier = v
	}
	start := time.Now()
	res, err := p.strategy.Solve(ctx, env, inst)
	if err == nil {
		err = judgeErr()
	}
	if err == nil {
		err = execErr()
	}
	// Stored whatever happened: an interrupted item's calls are kept for
	// inspection until a resume drops them.
	if ferr := calls.Flush(context.WithoutCancel(ctx)); ferr != nil {
		return store.Item{}, ferr
	}
	if err != nil {
		if ctx.Err() != nil {
			return store.Item{}, ctx.Err()
		}
		return store.Item{}, fmt.Errorf("item %d: %w", inst.Index, err)
	}
	detail, err := json.Marshal(res.Detail)
	if err != nil {
		return store.Item{}, fmt.Errorf("item %d: encode detail: %w", inst.Index, err)
	}
	// The calls table is the record: it also holds the calls of trials
	// completed before a resume.
	usage, err := e.Store.ItemTotals(context.WithoutCancel(ctx), runID, inst.Index)
	if err != nil {
		return store.Item{}, err
	}
	it := store.Item{
		RunID: runID, Index: inst.Index, Key: inst.Key, Input: inst.Input, Output: res.Output,
		Correct: res.Score.Correct, Score: res.Accuracy, Metrics: res.Metrics, Detail: detail,
		PromptTokens: usage.PromptTokens, CompletionTokens: usage.CompletionTokens, ReasoningTokens: usage.ReasoningTokens, Calls: usage.Calls,
		Requests: usage.Requests, Cost: usage.Cost, WallSeconds: time.Since(start).Seconds(),
	}
	it = redactItem(it)
	if err := e.Store.PutItem(context.WithoutCancel(ctx), it); err != nil {
		return store.Item{}, err
	}
	return it, nil
}
