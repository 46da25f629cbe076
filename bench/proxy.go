package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/endpoint"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
)

// ProxyTask and ProxyStrategy are what a proxy run records in place of a
// task and a strategy: its calls were made by a program bench does not
// run, for items bench does not know.
const (
	ProxyTask     = "proxy"
	ProxyStrategy = "proxy"
)

// ProxyOptions shape a proxy session.
type ProxyOptions struct {
	// Name names the run (its params: {"name": Name}); a session of the
	// same name, seed and model draws what an earlier one drew, so a
	// program that sends the same requests replays from the cache.
	Name string
	// Addr is the loopback address to listen on ("127.0.0.1:0": any port).
	Addr string
	// Ready is called once the endpoint listens, with the base URL and
	// key to give the program.
	Ready func(baseURL, key string)
}

// ProxyStats is what a proxy session saw beyond the calls it stored.
type ProxyStats struct {
	Requests, Refused int
	Refusals          []string // the first few reasons
}

// proxyItem is one item's sampler stack behind the endpoint.
type proxyItem struct {
	log     *store.CallLog
	handler http.Handler
}

// Proxy serves the recording endpoint (package endpoint) for a run of its
// own until ctx ends: every call a program sends is one of item n's (path
// /item/<n>/v1/…, or header X-Bench-Item, else item 0), goes through the
// item's stack as a strategy's call would (the budget, --param, identity
// and seed, record, thinking, the cache, cost, the model) and is stored as
// it arrives. When ctx ends the calls in flight finish, each item is
// stored with its last answer as the output (unscored: bench score scores
// exported answers against a task), and the run is finished.
func (e *Engine) Proxy(ctx context.Context, cfg Config, o ProxyOptions) (Summary, ProxyStats, error) {
	cfg.Task, cfg.Strategy = ProxyTask, ProxyStrategy
	if o.Name == "" {
		return Summary{}, ProxyStats{}, ConfigError{errors.New("--name: required (names the run)")}
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if err := cfg.Validate(); err != nil {
		return Summary{}, ProxyStats{}, ConfigError{err}
	}
	tags, err := llm.ParseThinkTags(cfg.ThinkTags)
	if err != nil {
		return Summary{}, ProxyStats{}, ConfigError{fmt.Errorf("--think-tags: %w", err)}
	}
	think, err := llm.Think(cfg.Think, tags)
	if err != nil {
		return Summary{}, ProxyStats{}, ConfigError{err}
	}
	registerKeys(cfg)
	p := &plan{cfg: cfg, think: think, tags: tags, calls: CallsByIdentity, shared: llm.Shared()}
	if cfg.ConcurrencyAuto {
		p.adaptive = llm.NewAdaptive(llm.AdaptiveOptions{Start: cfg.Concurrency, Max: cfg.ConcurrencyMax})
	}
	backend := e.Backend
	if backend == nil {
		if backend, err = p.backend(); err != nil {
			return Summary{}, ProxyStats{}, ConfigError{err}
		}
	}
	token, err := endpoint.NewToken()
	if err != nil {
		return Summary{}, ProxyStats{}, err
	}
	params, _ := json.Marshal(map[string]string{"name": o.Name})
	key := sha256.Sum256(fmt.Appendf(nil, "proxy\x00%s\x00%s\x00%s\x00%d", o.Name, cfg.Model, PublicEndpoint(cfg.BaseURL), cfg.Seed))
	scope := int64(binary.LittleEndian.Uint64(key[:8]) >> 1)
	stored, withCredentials := cfg.stored()
	spec, _ := json.Marshal(recordedSpec{Config: stored, URLCredentials: withCredentials, Calls: CallsByIdentity})
	simParams := json.RawMessage("{}")
	if cfg.Simulated() {
		simParams, _ = json.Marshal(cfg.Sim)
	}
	runID, err := e.Store.CreateRun(ctx, store.Run{Experiment: cfg.Experiment, Task: ProxyTask, Strategy: ProxyStrategy, Params: params,
		Model: cfg.Model, Endpoint: PublicEndpoint(cfg.BaseURL), Simulated: cfg.Simulated(), SimParams: simParams,
		Seed: cfg.Seed, Spec: spec, CodeVersion: CodeVersion(), ConfigKey: hex.EncodeToString(key[:12])})
	if err != nil {
		return Summary{}, ProxyStats{}, err
	}
	start := time.Now()
	budget := llm.NewBudget(cfg.MaxCost, 0)
	model := p.runRole(backend)
	shared, err := p.roleChain(model, nil, budget)
	if err != nil {
		return Summary{}, ProxyStats{}, err
	}
	log := &endpoint.Log{}
	var (
		mu    sync.Mutex
		items = map[int]*proxyItem{}
	)
	item := func(index int) (http.Handler, error) {
		mu.Lock()
		defer mu.Unlock()
		if it, ok := items[index]; ok {
			return it.handler, nil
		}
		calls := e.Store.CallLog(runID, index)
		s := p.itemStack(builtRole{role: model, chain: shared}, budget, llm.Identify(ItemSeed(scope, index), scope),
			llm.Record(proxyRecorder{calls}), p.shared, e.Store.ResponseCache(runID))
		it := &proxyItem{log: calls, handler: endpoint.ItemServer(s, "proxy", log)}
		items[index] = it
		return it.handler, nil
	}
	l, err := endpoint.Listen(o.Addr, token, &endpoint.Handler{Token: token, Items: true, Item: item, Log: log})
	if err != nil {
		_ = e.Store.FinishRun(context.WithoutCancel(ctx), runID, store.StatusFailed, 0, err.Error())
		return Summary{}, ProxyStats{}, ConfigError{err}
	}
	if o.Ready != nil {
		o.Ready(l.URL, token)
	}
	<-ctx.Done()
	// Calls in flight finish and are stored; new ones are refused.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	_ = l.Shutdown(stop)
	wctx := context.WithoutCancel(ctx)
	var indexes []int
	for i := range items {
		indexes = append(indexes, i)
	}
	sort.Ints(indexes)
	for _, i := range indexes {
		if err := e.putProxyItem(wctx, runID, i, items[i].log); err != nil {
			return Summary{}, ProxyStats{}, err
		}
	}
	status, msg := store.StatusDone, ""
	if err := log.Err(); errors.Is(err, llm.ErrMaxCost) {
		status, msg = store.StatusStopped, err.Error()
	}
	if err := e.Store.FinishRun(wctx, runID, status, time.Since(start), redact(msg)); err != nil {
		return Summary{}, ProxyStats{}, err
	}
	var stats ProxyStats
	stats.Requests = log.Requests()
	stats.Refused, stats.Refusals = log.Refused()
	sum, err := Summarize(wctx, e.Store, runID)
	return sum, stats, err
}

// proxyRecorder stores every call of a proxy item as it arrives, cache
// hits too: a proxy's program is not bench's to rerun, so its record is
// all there is.
type proxyRecorder struct{ log *store.CallLog }

func (r proxyRecorder) RecordCall(ctx context.Context, c llm.CallRecord) error {
	if err := (itemRecorder{log: r.log, role: "model"}).RecordCall(ctx, c); err != nil {
		return err
	}
	return r.log.Flush(ctx)
}

// putProxyItem stores a proxy item: its totals from its calls, and as its
// output the first choice of its last answered call, the answer an agent
// usually ends on (unscored).
func (e *Engine) putProxyItem(ctx context.Context, runID int64, index int, calls *store.CallLog) error {
	if err := calls.Flush(ctx); err != nil {
		return err
	}
	usage, err := e.Store.ItemTotals(ctx, runID, index)
	if err != nil {
		return err
	}
	stored, err := e.Store.Calls(ctx, runID, index)
	if err != nil {
		return err
	}
	out := ""
	for _, c := range stored {
		var resp llm.Response
		if c.Error == "" && json.Unmarshal(c.Response, &resp) == nil && len(resp.Choices) > 0 {
			out = resp.Choices[0].Content
		}
	}
	detail, _ := json.Marshal(map[string]any{"proxy": true, "calls": len(stored)})
	return e.Store.PutItem(ctx, store.Item{RunID: runID, Index: index, Key: strconv.Itoa(index), Output: redact(out), Detail: detail,
		PromptTokens: usage.PromptTokens, CompletionTokens: usage.CompletionTokens, ReasoningTokens: usage.ReasoningTokens,
		Calls: usage.Calls, Requests: usage.Requests, Cost: usage.Cost})
}
