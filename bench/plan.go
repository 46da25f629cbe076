// A configuration loaded and checked into a plan (engine.go lists the engine's files).

package bench

import (
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
)

// plan is a validated, loaded configuration.
type plan struct {
	cfg       Config
	task      tasks.Task
	params    param.Values
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
	// sources are the files of a strategy whose code lives outside this
	// build (strategies.Sourced), path → SHA-256, read once at load.
	sources map[string]string
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
	params, err := param.Resolve(spec.Params, cfg.Params)
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

// closeStrategy ends what the strategy keeps running across items (the
// reflexion_code shared namespace's interpreter), once the run is over.
func (p *plan) closeStrategy() {
	if c, ok := p.strategy.(io.Closer); ok {
		_ = c.Close()
	}
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
	if _, ok := p.task.(tasks.Environment); ok {
		if ep, plays := p.strategy.(strategies.EpisodePlayer); !plays || !ep.PlaysEpisodes() {
			return fmt.Errorf("task %s's items are conversations with a simulated user: run them with react (--set protocol=tools|act|react|xml, or a tau preset) or reflexion --set actor=react", p.task.Name())
		}
	}
	if _, ok := p.task.(tasks.Environment); !ok && p.cfg.UserModel != "" {
		return fmt.Errorf("--user-model: task %s has no simulated user (tau-airline and tau-retail do); drop it", p.task.Name())
	}
	if _, _, err := p.userRole(); err != nil {
		return err
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

// concurrency is the bound on items and calls in flight: with --concurrency
// auto its ceiling, the adaptive limit (inside Retry) doing the rest.
func (p *plan) concurrency() int {
	if p.cfg.ConcurrencyAuto {
		return p.cfg.ConcurrencyMax
	}
	return p.cfg.Concurrency
}
