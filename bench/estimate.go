package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/tokens"
	"github.com/reasonbench/reasonbench/store"
)

// DefaultEstimateSkills are the simulator skill levels an estimate spans.
var DefaultEstimateSkills = []float64{0.2, 0.5, 0.8}

// EstimateRow is what one configuration would use at one simulator skill.
type EstimateRow struct {
	Run              string  `json:"run"` // task strategy params
	Model            string  `json:"model"`
	Skill            float64 `json:"sim_skill"`
	Items            int     `json:"items"`
	Calls            int     `json:"calls"`      // requests that reach the model (one per call: n honoured)
	CacheHits        int     `json:"cache_hits"` // repeats within the run, answered by the response cache for free
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost"` // USD; 0 when unpriced
	Priced           bool    `json:"priced"`
	Accuracy         float64 `json:"sim_accuracy"` // the simulator's, for context only
	// ByPurpose splits the calls and tokens by what the calls were for
	// ("propose", "value", "cot", ...).
	ByPurpose map[string]PurposeUse `json:"by_purpose,omitempty"`
}

// PurposeUse is the calls and tokens of one purpose.
type PurposeUse struct {
	Calls            int `json:"calls"`
	Samples          int `json:"samples"` // choices returned
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Estimate is a dry run's prediction of what running some configurations
// on a model would use.
type Estimate struct {
	Model     string        `json:"model"`
	Encoding  string        `json:"tokenizer"`
	Exact     bool          `json:"tokenizer_exact"` // false: Encoding approximates the model's own
	Price     *llm.Price    `json:"price,omitempty"` // USD per 1M tokens; nil when unknown
	Skills    []float64     `json:"sim_skills"`
	Rows      []EstimateRow `json:"rows"`   // per configuration and skill
	Totals    []EstimateRow `json:"totals"` // per skill, all configurations
	Simulated bool          `json:"simulated_dry_run"`
}

// Range returns the lowest and highest total of f over the skills.
func (e Estimate) Range(f func(EstimateRow) float64) (lo, hi float64) {
	for i, t := range e.Totals {
		v := f(t)
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// EstimateRuns predicts the calls, tokens and cost of running cfgs on
// model (each config's own model when model is ""), from dry runs on the
// simulator at each skill level, in a throwaway database. The prompts are
// the ones the harness would send, counted with the model family's
// tokenizer; how many calls are made and how long the completions are come
// from the simulator's behaviour. prices overrides the built-in table.
func EstimateRuns(ctx context.Context, cfgs []Config, model string, prices llm.Prices, skills []float64) (Estimate, error) {
	if len(skills) == 0 {
		skills = DefaultEstimateSkills
	}
	if model == "" && len(cfgs) > 0 {
		model = cfgs[0].Model
	}
	counter, err := tokens.ForModel(model)
	if err != nil {
		return Estimate{}, err
	}
	est := Estimate{Model: model, Encoding: counter.Encoding(), Exact: counter.Exact, Skills: skills, Simulated: true}
	table := llm.DefaultPrices().With(prices)
	price, priced := table.Lookup(model)
	if priced {
		est.Price = &price
	}
	dir, err := os.MkdirTemp("", "reasonbench-estimate-")
	if err != nil {
		return est, err
	}
	defer os.RemoveAll(dir)
	for si, skill := range skills {
		st, err := store.Open(ctx, filepath.Join(dir, fmt.Sprintf("dry-%d.db", si)))
		if err != nil {
			return est, err
		}
		total := EstimateRow{Run: "total", Model: model, Skill: skill, Priced: priced}
		for _, cfg := range cfgs {
			row, err := dryRun(ctx, st, cfg, skill, counter, price, priced)
			if err != nil {
				st.Close()
				return est, err
			}
			row.Model = model
			est.Rows = append(est.Rows, row)
			total.Items += row.Items
			total.Calls += row.Calls
			total.CacheHits += row.CacheHits
			total.PromptTokens += row.PromptTokens
			total.CompletionTokens += row.CompletionTokens
			total.Cost += row.Cost
		}
		st.Close()
		est.Totals = append(est.Totals, total)
	}
	return est, nil
}

// promptTokens counts a request's prompt as the API receives it: on the
// completions API the one user turn's text, with no chat format around it.
func promptTokens(counter *tokens.Counter, api string, req llm.Request) int {
	if api == llm.APICompletions && len(req.Messages) == 1 {
		return counter.Text(req.Messages[0].Content)
	}
	return counter.Prompt(req.Messages, req.Tools)
}

// requests is how many requests ask for n choices at most maxN at a time.
func requests(n, maxN int) int {
	if maxN <= 0 {
		return 1
	}
	return (n + maxN - 1) / maxN
}

// dryRun runs one configuration on the simulator at one skill and counts
// what reached the model with the real tokenizer.
func dryRun(ctx context.Context, st *store.Store, cfg Config, skill float64, counter *tokens.Counter, price llm.Price, priced bool) (EstimateRow, error) {
	if p, err := load(cfg); err == nil && verifies(p.strategy) != "" {
		_, _, cfg.Verify.Kind = cfg.Verifier() // the kind the real run would have
	}
	cfg.Model, cfg.BaseURL, cfg.APIKey = SimModel, "", ""
	cfg.Verify.Model, cfg.Verify.BaseURL, cfg.Verify.Server = "", "", "" // the simulated verifier, of the same kind
	if cfg.JudgeModel != "" || cfg.JudgeBaseURL != "" {                  // the judge's calls are counted as the model's
		cfg.JudgeModel, cfg.JudgeBaseURL = SimModel, ""
	}
	cfg.Sim.Skill = skill
	cfg.MaxCost, cfg.Prices, cfg.ConcurrencyAuto = 0, nil, false
	cfg.Cache = llm.CacheReadWrite // an empty cache, as on a first run
	cfg.Experiment = ""
	sim, err := NewSim(cfg.Sim)
	if err != nil {
		return EstimateRow{}, ConfigError{err}
	}
	var (
		mu  sync.Mutex
		row = EstimateRow{ByPurpose: map[string]PurposeUse{}}
	)
	// Inside the cache: only the calls a real run would pay for.
	count := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := sim.Sample(ctx, req)
		if err != nil {
			return resp, err
		}
		// With --max-n the prompt goes out once per request.
		p, c := promptTokens(counter, cfg.API, req)*requests(req.Samples(), cfg.MaxN), counter.Completion(resp)
		mu.Lock()
		row.Calls++
		row.PromptTokens += p
		row.CompletionTokens += c
		u := row.ByPurpose[req.Purpose]
		u.Calls++
		u.Samples += len(resp.Choices)
		u.PromptTokens += p
		u.CompletionTokens += c
		row.ByPurpose[req.Purpose] = u
		mu.Unlock()
		return resp, nil
	})
	eng := &Engine{Store: st, Backend: count}
	sum, err := eng.Run(ctx, cfg)
	if err != nil {
		return EstimateRow{}, fmt.Errorf("dry run of %s %s: %w", cfg.Task, cfg.Strategy, err)
	}
	saved, err := st.CacheSavings(ctx, sum.RunID)
	if err != nil {
		return EstimateRow{}, err
	}
	row.Run = fmt.Sprintf("%s %s %s", sum.Task, sum.Strategy, ParamSummary(sum.Strategy, sum.Params))
	row.Skill, row.Items, row.Accuracy, row.CacheHits, row.Priced = skill, sum.N, sum.Accuracy, saved.Hits, priced
	if priced {
		row.Cost = price.Of(llm.Usage{PromptTokens: row.PromptTokens, CompletionTokens: row.CompletionTokens})
	}
	return row, nil
}
