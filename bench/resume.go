// Resuming an unfinished run.

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
)

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
	// MCP are MCP servers given again, by name: a server whose
	// credentials the run did not store needs it (resumeTools).
	MCP []tools.Server
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
	// From here on this process is the run's one writer, until execute
	// finishes the run or a refusal below gives the lease back.
	l, err := e.takeLease(ctx, runID)
	if err != nil {
		var held RunHeldError
		if errors.As(err, &held) {
			return Summary{}, ConfigError{err}
		}
		return Summary{}, err
	}
	executing := false
	defer func() {
		if !executing {
			e.Store.DropLease(context.WithoutCancel(ctx), runID, l.token)
		}
	}()
	cfg := spec.Config
	if spec.URLCredentials && o.BaseURL == "" && o.EnvBaseURL == "" && len(o.Endpoints) == 0 {
		return Summary{}, ConfigError{fmt.Errorf("run %d: its endpoint URLs held credentials, which are not stored: resume with --base-url (and --endpoint NAME=URL) as given to the run", runID)}
	}
	cfg.APIKey, cfg.VerifierAPIKey, cfg.JudgeAPIKey = apiKey, o.VerifierAPIKey, o.JudgeAPIKey
	if err := cfg.moveEndpoints(o); err != nil {
		return Summary{}, ConfigError{err}
	}
	if cfg.MCP, err = resumeTools(runID, spec.Config.MCP, o.MCP); err != nil {
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
	defer p.closeStrategy()
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
		spec.Config, _ = spec.Config.stored()
		b, _ := json.Marshal(spec)
		if err := e.Store.SetRunSpec(ctx, runID, b); err != nil {
			return Summary{}, err
		}
	}
	executing = true
	return e.execute(ctx, l, p, backend, run.WallSeconds, spent)
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
