// Running a plan: Run, experiments, the item loop and how a run finishes.

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

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
			// At the endpoints and servers configured: the run stored their
			// URLs and servers without credentials.
			sum, err = e.ResumeWith(ctx, prev.ID, ResumeOptions{APIKey: apiKey, VerifierAPIKey: keys.Verifier, JudgeAPIKey: keys.Judge, MaxCost: &cfg.MaxCost, Prices: cfg.Prices,
				BaseURL: cfg.BaseURL, Endpoints: cfg.NamedEndpoints, NamedKeys: cfg.NamedKeys, MCP: cfg.MCP})
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
	defer p.closeStrategy()
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
	stored, withCredentials := cfg.stored()
	rs := recordedSpec{Config: stored, URLCredentials: withCredentials, Params: p.params, Prompts: hashes,
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
	me := e.holder()
	id, err := e.Store.CreateLeasedRun(ctx, run, me)
	if err != nil {
		return Summary{}, err
	}
	return e.execute(ctx, lease{runID: id, token: me.Token}, p, backend, 0, 0)
}

// execute solves the plan's instances into the leased run and finishes
// the run, giving up the lease; priorWall is the wall time of earlier
// sessions of the same run, spent their cost.
func (e *Engine) execute(ctx context.Context, l lease, p *plan, backend llm.Sampler, priorWall, spent float64) (Summary, error) {
	id := l.runID
	start := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	beating := make(chan struct{})
	go func() {
		defer close(beating)
		e.heartbeat(ctx, l, cancel)
	}()
	defer func() { cancel(nil); <-beating }()
	budget := llm.NewBudget(p.cfg.MaxCost, spent)
	roles, err := p.buildRoles(backend, e.Backend, budget)
	if err != nil {
		return Summary{}, err
	}
	runErr := e.solveAll(ctx, id, p, roles, budget)
	if err := e.recordReplicas(context.WithoutCancel(ctx), id, p); err != nil && runErr == nil {
		runErr = err
	}
	if lost := context.Cause(ctx); errors.Is(lost, store.ErrLeaseLost) {
		// Another process works on the run now: its status is theirs.
		return Summary{RunID: id}, fmt.Errorf("run %d: stopped: %w (bench resume --force); this process wrote nothing more", id, lost)
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
	if err := e.Store.FinishLeasedRun(context.WithoutCancel(ctx), id, l.token, status, wall, redact(msg)); err != nil {
		return Summary{RunID: id}, err
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

// solveAll solves every instance on a bounded pool. The first
// infrastructure error (an unreachable endpoint, a failing store) stops the
// run; wrong or garbled model output is never an error, only a wrong item.
//
// Once the budget is spent no item starts and items that need another call
// stop without a result (left for resume), while calls in flight finish.
func (e *Engine) solveAll(ctx context.Context, runID int64, p *plan, roles []builtRole, budget *llm.Budget) error {
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
			it, err := e.solveOne(ctx, runID, p, roles, budget, inst)
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
