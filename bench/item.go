// One item: its seed, its sampler stack and call log, solving it and storing it.

package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

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
	// A process whose run was taken over writes nothing more to it.
	if lost := context.Cause(ctx); errors.Is(lost, store.ErrLeaseLost) {
		return store.Item{}, lost
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
