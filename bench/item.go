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

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
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
	// role names the role whose calls these are (its event's role).
	role string
}

// RecordCall keeps the call with its event (events.Model): the role, the
// identity, and the step ctx declares or the identity's.
func (r itemRecorder) RecordCall(ctx context.Context, c llm.CallRecord) error {
	ev := r.log.Events().Stamp(ctx, events.Event{Kind: events.Model, Call: c.Call, Role: r.role})
	call := store.Call{Role: ev.Role, Identity: ev.Call, Step: ev.Step, Seq: ev.Seq, Purpose: c.Purpose, Request: secrets.Process.RedactJSON(c.Request), Response: secrets.Process.RedactJSON(c.Response),
		PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens, ReasoningTokens: c.Usage.ReasoningTokens,
		Requests: c.Usage.Requests,
		Cost:     c.Usage.Cost, Latency: c.Latency, CacheHit: c.CacheHit}
	if c.Err != nil {
		call.Error = redact(c.Err.Error())
	}
	r.log.Add(call)
	if r.eager && !c.CacheHit {
		return r.log.Flush(ctx)
	}
	return nil
}

func (e *Engine) solveOne(ctx context.Context, runID int64, p *plan, roles []builtRole, budget *llm.Budget, inst tasks.Instance) (store.Item, error) {
	calls := e.Store.CallLog(runID, inst.Index)
	// Each call's seed comes from its identity before it is recorded and
	// keyed; model parameters join the request before that; thinking is
	// split after the cache, which keeps responses as sent; declared
	// sharing sits in front of the cache so that a shared draw is made once
	// whoever asks.
	seed := ItemSeed(p.scope, inst.Index)
	identify, shared := llm.Identify(seed, p.scope), p.shared
	if p.calls != CallsByIdentity {
		seed = ItemSeed(p.cfg.Seed, inst.Index)
		identify, shared = llm.Anonymous(seed), nil
	}
	stacks := make([]llm.Sampler, len(roles))
	for i, r := range roles {
		var share llm.Middleware
		if r.run { // declared sharing is the strategy's own calls'
			share = shared
		}
		stacks[i] = p.itemStack(r, budget, identify, llm.Record(itemRecorder{log: calls, eager: !p.cfg.InProcess(), role: r.name}), share, e.Store.ResponseCache(runID))
	}
	trace := itemTrace{st: e.Store, run: runID, index: inst.Index}
	env := strategies.Env{Task: p.task, Prompts: p.prompts, Seed: seed, Model: p.cfg.Model,
		Trace:      trace,
		Checkpoint: itemCheckpoint{itemTrace: trace, calls: calls},
		Memory:     runMemory{st: e.Store, run: runID, task: p.task.Name()},
		Events:     calls.Events()}
	if p.tools != nil {
		env.Tools = eventTools{host: p.tools.ForItem(e.Store.ResponseCache(runID), p.cfg.ToolCache, seed, inst.Index), log: calls.Events()}
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
	for i, r := range roles {
		switch {
		case r.run:
			env.Sampler = stacks[i]
		case r.name == "judge":
			if jt, ok := p.task.(tasks.Judged); ok {
				env.Task, judgeErr = jt.WithJudge(ctx, tasks.Judge{Sampler: stacks[i], Prompts: p.prompts})
			}
			env.Judge = stacks[i]
		case r.name == "user":
			env.User = stacks[i]
		case r.name == "verifier":
			v, err := p.itemVerifier(stacks[i])
			if err != nil {
				return store.Item{}, err
			}
			env.Verifier = eventVerifier{v: v, log: calls.Events()}
		case r.label != "":
			if env.Models == nil {
				env.Models = map[string]llm.Sampler{}
			}
			env.Models[r.label] = stacks[i]
		}
	}
	start := time.Now()
	res, err := p.strategy.Solve(ctx, env, inst)
	if err == nil {
		err = judgeErr()
	}
	if err == nil {
		err = execErr()
	}
	if err == nil { // the verdict goes with the item's last calls
		calls.Events().Record(ctx, events.Event{Kind: events.Verdict, Correct: res.Score.Correct, Score: res.Accuracy,
			Answer: redact(res.Score.Answer)})
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
