// Package bench is the engine: it turns a run configuration into a stored
// run, solving items concurrently on one shared sampler.
package bench

import (
	"encoding/json"
	"fmt"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tools"
)

// SimModel is the model name of the built-in simulator.
const SimModel = "sim"

// Config says what to run. It is recorded with the run, except the API key.
type Config struct {
	Task     string         `json:"task"`
	TaskSpec string         `json:"task_spec,omitempty"` // file tasks: the data's spec file (--task-spec)
	Strategy string         `json:"strategy"`
	Params   map[string]any `json:"params"` // raw values; validated against the strategy's declaration
	Range    string         `json:"range"`
	Model    string         `json:"model"`
	BaseURL  string         `json:"base_url,omitempty"`
	APIKey   string         `json:"-"` // from the environment; never stored
	// VerifierAPIKey is sent to a verifier on another endpoint than the
	// run's (--verifier-api-key); the run's key never goes there. Never
	// stored.
	VerifierAPIKey string `json:"-"`
	// JudgeAPIKey is sent to a judge on another endpoint than the run's
	// (--judge-api-key, $JUDGE_API_KEY); the run's key never goes there.
	// Never stored.
	JudgeAPIKey string `json:"-"`
	// NamedEndpoints are the endpoints --endpoint NAME=URL[,KEY_ENV] names,
	// on which a role's model may be (MODEL@NAME); NamedKeys their keys by
	// name, read from each KEY_ENV, never stored.
	NamedEndpoints []Endpoint        `json:"named_endpoints,omitempty"`
	NamedKeys      map[string]string `json:"-"`
	Concurrency    int               `json:"concurrency"`
	Seed           int64             `json:"seed"`
	Sim            sim.Params        `json:"sim"`
	PromptDir      string            `json:"prompt_dir,omitempty"`
	Timeout        time.Duration     `json:"timeout"`
	Retries        int               `json:"retries"` // extra attempts on 429, 5xx, timeouts and refused connections
	Cache          string            `json:"cache"`   // llm.CacheReadWrite, CacheRead or CacheOff
	Experiment     string            `json:"experiment,omitempty"`
	// Baseline names the experiment's baseline configuration ("cotsc",
	// "tot b=1"), against which tables compare the others; not part of
	// what a run computes.
	Baseline string `json:"baseline,omitempty"`
	// Rule names the task's scoring rule ("" for its default), e.g. game24 "paper".
	Rule string `json:"rule,omitempty"`
	// MaxCost stops the run cleanly once its recorded cost reaches this
	// many US dollars (0: no ceiling); Prices overrides the built-in price
	// table (llm.DefaultPrices), also for the simulator.
	MaxCost float64 `json:"max_cost,omitempty"`
	// ConcurrencyAuto adapts the calls in flight to the server (AIMD on
	// 429/503 and Retry-After) between 1 and ConcurrencyMax, starting at
	// Concurrency.
	ConcurrencyAuto bool       `json:"concurrency_auto,omitempty"`
	ConcurrencyMax  int        `json:"concurrency_max,omitempty"`
	Prices          llm.Prices `json:"prices,omitempty"`
	// API is the endpoint's API: llm.APIChat ("" too) or
	// llm.APICompletions, which only strategies sending one user turn use.
	API string `json:"api,omitempty"`
	// ModelParams are request body fields sent verbatim with every call
	// (--param NAME=VALUE, an experiment file's model: params:).
	ModelParams map[string]json.RawMessage `json:"model_params,omitempty"`
	// Think is what happens to a thinking block leading the content:
	// llm.ThinkSplit ("" too) or llm.ThinkKeep; ThinkTags its markers in
	// llm.ParseThinkTags's form ("" for <think>…</think>).
	Think     string `json:"think,omitempty"`
	ThinkTags string `json:"think_tags,omitempty"`
	// MaxTokensField is how a strategy's max_tokens goes out on the chat
	// API: llm.MaxTokensAuto ("" too), llm.FieldMaxTokens or
	// llm.FieldMaxCompletionTokens.
	MaxTokensField string `json:"max_tokens_field,omitempty"`
	// MaxN caps the choices asked for in one request (0: no cap); the
	// rest are asked for in more requests with seeds seed+i, so the answers
	// are the same.
	MaxN int `json:"max_n,omitempty"`
	// Shard, when set, runs only this shard's part of the range's items
	// (bench run --shard I/N, shard.go); Range stays the whole range.
	Shard *Shard `json:"shard,omitempty"`
	// JudgeModel and JudgeBaseURL name the model scoring a judged task's
	// outputs (creative writing's coherency); "" for the run's own model
	// and endpoint.
	JudgeModel   string `json:"judge_model,omitempty"`
	JudgeBaseURL string `json:"judge_base_url,omitempty"`
	// Verify is the verifier role (--verifier-*, verifier.go).
	Verify VerifierConfig `json:"verifier,omitzero"`
	// MaxResponseBytes caps a response's body (--max-response-bytes; 0:
	// llm.DefaultMaxResponseBytes): a larger one fails its call as the
	// server's error instead of filling memory.
	MaxResponseBytes int64 `json:"max_response_bytes,omitempty"`
	// UserModel is the model of an episode's simulated user (tau-*;
	// --user-model MODEL[@NAME]); "" for the run's own model and endpoint.
	UserModel string `json:"user_model,omitempty"`
	// MCP are the MCP servers whose tools agents act with (--mcp,
	// --mcp-config, tools.go); once connected each records what it
	// reported and its tools' digest. ToolCache is tools.CacheReadWrite
	// ("" too) or tools.CacheOff (--tool-cache).
	MCP       []tools.Server `json:"mcp,omitempty"`
	ToolCache string         `json:"tool_cache,omitempty"`
}

// Judge returns the judge's model and endpoint: the run's unless set. A
// judge model MODEL@NAME is on the named endpoint (--endpoint NAME=URL),
// which --judge-base-url then may not contradict.
func (c Config) Judge() (model, baseURL string) {
	model, baseURL = c.Model, c.BaseURL
	if c.JudgeBaseURL == "" && strings.Contains(c.JudgeModel, "@") {
		if am, err := c.resolveModel(c.JudgeModel); err == nil {
			return am.model, am.baseURL
		}
	}
	if c.JudgeModel != "" || c.JudgeBaseURL != "" {
		if c.JudgeModel != "" {
			model = c.JudgeModel
		}
		if c.JudgeBaseURL != "" {
			baseURL = c.JudgeBaseURL
		}
	}
	return model, baseURL
}

// SeparateJudge reports whether the judge is another model or endpoint
// than the run's.
func (c Config) SeparateJudge() bool {
	m, u := c.Judge()
	return m != c.Model || u != c.BaseURL
}

// DefaultConfig returns the defaults of `bench run`.
func DefaultConfig() Config {
	return Config{Model: SimModel, Concurrency: 16, Seed: 1, Sim: sim.DefaultParams(), Timeout: 5 * time.Minute, Retries: 4,
		Cache: llm.CacheReadWrite}
}

// Simulated reports whether the run uses the in-process simulator or a
// simulator served over HTTP (model name "sim").
func (c Config) Simulated() bool { return c.Model == SimModel }

// InProcess reports whether no HTTP endpoint is involved.
func (c Config) InProcess() bool { return c.Model == SimModel && c.BaseURL == "" }

// Validate checks what can be checked without loading anything.
func (c Config) Validate() error {
	if c.Task == "" {
		return fmt.Errorf("no task: pass --task (see `bench list`)")
	}
	if c.Strategy == "" {
		return fmt.Errorf("no strategy: pass --strategy (see `bench list`)")
	}
	if c.Concurrency < 1 {
		return fmt.Errorf("--concurrency %d: must be at least 1", c.Concurrency)
	}
	if !slices.Contains(llm.CacheModes, c.Cache) {
		return fmt.Errorf("--cache %q: want one of %v", c.Cache, llm.CacheModes)
	}
	if c.ConcurrencyAuto && c.ConcurrencyMax < 1 {
		return fmt.Errorf("--concurrency-max %d: must be at least 1", c.ConcurrencyMax)
	}
	if c.MaxCost < 0 {
		return fmt.Errorf("--max-cost %g: must be at least 0 (0: no ceiling)", c.MaxCost)
	}
	if c.Retries < 0 {
		return fmt.Errorf("--retries %d: must be at least 0", c.Retries)
	}
	if c.Model == "" {
		return fmt.Errorf("no model: pass --model sim or a model name with --base-url")
	}
	if c.API != "" && !slices.Contains(llm.APIs, c.API) {
		return fmt.Errorf("--api %q: want one of %s", c.API, strings.Join(llm.APIs, ", "))
	}
	if c.Think != "" && !slices.Contains(llm.ThinkModes, c.Think) {
		return fmt.Errorf("--think %q: want one of %s", c.Think, strings.Join(llm.ThinkModes, ", "))
	}
	if _, err := llm.ParseThinkTags(c.ThinkTags); err != nil {
		return fmt.Errorf("--think-tags: %w", err)
	}
	if c.MaxTokensField != "" && !slices.Contains(llm.MaxTokensFields, c.MaxTokensField) {
		return fmt.Errorf("--max-tokens-field %q: want one of %s", c.MaxTokensField, strings.Join(llm.MaxTokensFields, ", "))
	}
	if c.MaxN < 0 {
		return fmt.Errorf("--max-n %d: must be at least 0 (0: no cap)", c.MaxN)
	}
	for name, v := range c.ModelParams {
		if err := checkModelParam(name, v); err != nil {
			return err
		}
	}
	if strings.Contains(c.JudgeModel, "@") {
		if c.JudgeBaseURL != "" {
			return fmt.Errorf("--judge-model %s names its endpoint: drop --judge-base-url", c.JudgeModel)
		}
		if _, err := c.resolveModel(c.JudgeModel); err != nil {
			return fmt.Errorf("--judge-model: %w", err)
		}
	}
	if c.JudgeBaseURL != "" {
		u, err := url.Parse(c.JudgeBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--judge-base-url %q: want http(s)://HOST[:PORT]/v1", c.JudgeBaseURL)
		}
	}
	if strings.Contains(c.Verify.Model, "@") {
		if c.Verify.BaseURL != "" {
			return fmt.Errorf("--verifier-model %s names its endpoint: drop --verifier-base-url", c.Verify.Model)
		}
		if _, err := c.resolveModel(c.Verify.Model); err != nil {
			return fmt.Errorf("--verifier-model: %w", err)
		}
	}
	if err := c.Verify.validate(); err != nil {
		return err
	}
	if err := tools.CheckAll(c.MCP); err != nil {
		return err
	}
	if c.ToolCache != "" && !slices.Contains(tools.CacheModes, c.ToolCache) {
		return fmt.Errorf("--tool-cache %q: want one of %s", c.ToolCache, strings.Join(tools.CacheModes, ", "))
	}
	for _, b := range c.Endpoints() {
		u, err := url.Parse(b)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--base-url %q: want http(s)://HOST[:PORT]/v1, or several replicas of one model separated by commas", b)
		}
	}
	return c.Sim.Validate()
}

// Price returns the model's price from the built-in table with the
// config's overrides, if known.
func (c Config) Price() (llm.Price, bool) {
	return llm.DefaultPrices().With(c.Prices).Lookup(c.Model)
}

// BackendIdentity names what answers the requests, for the response
// cache: the simulator with its parameters, or a model at an endpoint.
func (c Config) BackendIdentity() string {
	if c.InProcess() {
		b, _ := json.Marshal(c.Sim)
		return "sim " + string(b)
	}
	id := c.Model + " @ " + PublicEndpoint(c.BaseURL)
	if c.API == llm.APICompletions { // another endpoint, other answers
		id += " (completions)"
	}
	return id
}

// Endpoints are the base URLs of the model's replicas: BaseURL split at
// commas (--base-url A,B,C, or an experiment file's base_urls:).
func (c Config) Endpoints() []string {
	var out []string
	for _, b := range strings.Split(c.BaseURL, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// PublicEndpoint is the base URL with any credentials removed, for records;
// of several replicas (A,B,C), each.
func PublicEndpoint(raw string) string { return llm.PublicURL(raw) }

// CodeVersion describes the running build for the record.
func CodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v + " " + bi.GoVersion
}

func secondsDuration(s int) time.Duration { return time.Duration(s) * time.Second }
