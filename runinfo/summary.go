// Package runinfo is one run's facts (headline numbers, model settings,
// scoring rule, the task it read) from its recorded spec and stored rows,
// shared by the engine, which returns them, and the read side; results
// combines many runs' runinfo into the rows views show, and render writes
// those rows out.
package runinfo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
)

// Catalog is what reading a run asks of the tasks and strategies its spec
// names. catalog/ and strategies/ know them and the read side imports
// neither: bench.Catalog answers, and the read side's callers (cmd/bench,
// the viewer) pass it in.
type Catalog interface {
	// TaskRule is the description of the scoring rule the bundled task
	// scores by under rule ("" its default): "name: what it checks",
	// marked when a program it scores could forge its verdict
	// (tasks.ForgeableMark); ok is false for a task it does not know or
	// a rule the task refuses.
	TaskRule(task, rule string) (description string, ok bool)
	// RuleForgeable says whether a rule's description declares the rule
	// forgeable.
	RuleForgeable(description string) bool
	// ParamSummary is a recorded run's strategy parameters as tables show
	// them ("k=10 b=5"), or their JSON when the strategy or values are
	// not known.
	ParamSummary(strategy string, params json.RawMessage) string
	// OpenTask opens a task by the name, task spec and rule a run
	// recorded ("file:PATH" for a file task, read now).
	OpenTask(task, taskSpec, rule string) (Task, error)
}

// Task is a run's task as the read side reads it: its items' gold
// answers, hidden tests and labels, and the answer its scorer extracts
// from an output. Items are named by index; an unknown index has none.
type Task interface {
	// Gold is item idx's reference answer ("" when unknown or the task
	// checks answers another way).
	Gold(idx int) string
	// HiddenTests is the program that checks item idx's answer when the
	// task checks by program (HumanEval, MBPP), else "".
	HiddenTests(idx int) string
	// Extracted is the answer the task's scorer reads from output for
	// item idx ("" when it reads none).
	Extracted(idx int, output string) string
	// LabelKeys are the keys of the labels its items carry (MATH-500's
	// level and subject); nil when they carry none.
	LabelKeys() []string
	// Labels are each item's label under key, by index.
	Labels(key string) map[int]string
}

// fileTaskPrefix begins a file task's name ("file:PATH"), as the run's
// configuration recorded it.
const fileTaskPrefix = "file:"

// Summary is a run's headline numbers, computed from the store alone.
type Summary struct {
	RunID    int64           `json:"run_id"`
	Task     string          `json:"task"`
	Strategy string          `json:"strategy"`
	Params   json.RawMessage `json:"params"`
	// ParamText is Params as tables show them (Catalog.ParamSummary).
	ParamText        string             `json:"-"`
	Model            string             `json:"model"`
	Simulated        bool               `json:"simulated"`
	Status           string             `json:"status"`
	N                int                `json:"n"`
	Accuracy         float64            `json:"accuracy"`
	Metrics          map[string]float64 `json:"-"` // flattened into the JSON object
	PromptTokens     int                `json:"prompt_tokens"`
	CompletionTokens int                `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens the model spent
	// thinking, as the server reported it (0 when it reports none).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// ToolFailures counts the run's tool calls that failed because their
	// MCP server did (it crashed, gave no answer in time, broke the
	// connection): the sum of the items' tool_failures, which it takes out
	// of Metrics. Their items were scored on what the model made of the
	// error.
	ToolFailures int     `json:"tool_failures,omitempty"`
	Calls        int     `json:"calls"`
	Requests     int     `json:"requests"`
	Cost         float64 `json:"cost"`
	WallSeconds  float64 `json:"wall_seconds"`
	// Rule is the scoring rule's short name ("game24/paper"); PromptPack
	// the prompts ("bundled" or "folder:HASH"). Both from the run's spec.
	Rule       string `json:"rule,omitempty"`
	PromptPack string `json:"prompt_pack,omitempty"`
	// RuleForgeable says the rule declares itself forgeable (tasks.
	// ForgeableMark): a program it scored could forge its verdict.
	RuleForgeable bool `json:"rule_forgeable,omitempty"`
	// ModelParams says how the model was called when not as by default
	// ("api=completions reasoning_effort=high think=keep"), from the spec.
	ModelParams string `json:"model_params,omitempty"`
	// Dataset is the digest of the data scored ("sha256:..."), from the
	// run's spec; "" for runs recorded before it was kept.
	Dataset string `json:"dataset,omitempty"`
	// Series of multi-trial strategies (series.go), taken out of Metrics:
	// accuracy after each Reflexion trial (after_trial_N) and the share of
	// items that ran it (ran_trial_N); the same per Self-Refine iteration.
	PerTrial        []float64 `json:"per_trial,omitempty"`
	PerTrialRan     []float64 `json:"per_trial_ran,omitempty"`
	PerIteration    []float64 `json:"per_iteration,omitempty"`
	PerIterationRan []float64 `json:"per_iteration_ran,omitempty"`
	// ItemScores are the items' scores in item order, whose kind (0/1 or
	// in between) chooses the accuracy's interval (results.RowOf).
	ItemScores []float64 `json:"-"`
}

// ToolFailuresMetric is the item metric counting tool calls whose server
// failed; a run's summary has their sum (ToolFailures), not their mean.
const ToolFailuresMetric = "tool_failures"

// MarshalJSON flattens the metrics (best_of_k, any_at_b, em, ...) into the
// top-level object, next to accuracy.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range s.Metrics {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// MetricNames returns the metric keys in a stable order.
func (s Summary) MetricNames() []string {
	return slices.Sorted(maps.Keys(s.Metrics))
}

// Summarize computes a run's summary from its stored items and calls.
func Summarize(ctx context.Context, st *store.Store, cat Catalog, runID int64) (Summary, error) {
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return Summary{}, err
	}
	items, err := st.Items(ctx, runID)
	if err != nil {
		return Summary{}, err
	}
	tot, err := st.Totals(ctx, runID)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{
		RunID: run.ID, Task: run.Task, Strategy: run.Strategy, Params: run.Params, Model: run.Model,
		Simulated: run.Simulated, Status: run.Status, N: len(items), Metrics: map[string]float64{},
		PromptTokens: tot.PromptTokens, CompletionTokens: tot.CompletionTokens, ReasoningTokens: tot.ReasoningTokens, Calls: tot.Calls,
		Requests: tot.Requests, Cost: tot.Cost, WallSeconds: run.WallSeconds,
	}
	s.ParamText = cat.ParamSummary(run.Strategy, run.Params)
	s.Rule, s.PromptPack = specRuleAndPack(cat, run.Spec)
	s.RuleForgeable = specRuleForgeable(cat, run.Spec)
	var spec recordedSpec
	if json.Unmarshal(run.Spec, &spec) == nil {
		s.ModelParams = spec.Config.settings().Text()
	}
	s.Dataset = specDataset(run.Spec)
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, it := range items {
		s.Accuracy += it.Score
		s.ItemScores = append(s.ItemScores, it.Score)
		for k, v := range it.Metrics {
			sums[k] += v
			counts[k]++
		}
	}
	if _, ok := sums[ToolFailuresMetric]; ok {
		s.ToolFailures = int(sums[ToolFailuresMetric])
		delete(sums, ToolFailuresMetric)
	}
	if len(items) > 0 {
		s.Accuracy /= float64(len(items))
	}
	for k, v := range sums {
		if !s.addSeries(k, v/float64(counts[k])) {
			s.Metrics[k] = v / float64(counts[k])
		}
	}
	return s, nil
}

// specRuleAndPack reads the scoring rule's short name and the prompt pack
// from a run's spec. Runs recorded before they were kept used the task's
// default rule and, with no prompt folder, the bundled prompts.
func specRuleAndPack(cat Catalog, raw []byte) (rule, pack string) {
	var spec recordedSpec
	if json.Unmarshal(raw, &spec) != nil {
		return "", ""
	}
	rule, _, _ = strings.Cut(spec.Rule, ": ")
	pack = spec.PromptPack
	if pack == "" && spec.Config.PromptDir == "" {
		pack = prompts.BundledPack
	}
	if rule == "" && spec.Config.Rule == "" {
		if desc, ok := cat.TaskRule(spec.Config.Task, ""); ok {
			rule, _, _ = strings.Cut(desc, ": ")
		}
	}
	return rule, pack
}

// RunRule is the scoring rule's short name a run's spec records and
// whether the rule declares itself forgeable.
func RunRule(cat Catalog, spec []byte) (rule string, forgeable bool) {
	rule, _ = specRuleAndPack(cat, spec)
	return rule, specRuleForgeable(cat, spec)
}

// specRuleForgeable reads from a run's spec whether its scoring rule, as
// recorded (or the task's default for runs that recorded none), declares
// itself forgeable.
func specRuleForgeable(cat Catalog, raw []byte) bool {
	var spec recordedSpec
	if json.Unmarshal(raw, &spec) != nil {
		return false
	}
	if spec.Rule != "" {
		return cat.RuleForgeable(spec.Rule)
	}
	desc, ok := cat.TaskRule(spec.Config.Task, spec.Config.Rule)
	return ok && cat.RuleForgeable(desc)
}

// specDataset reads the data digest from a run's spec.
func specDataset(raw []byte) string {
	var spec recordedSpec
	if json.Unmarshal(raw, &spec) != nil || spec.Dataset == nil {
		return ""
	}
	return spec.Dataset.SHA256
}

// RecordedTask opens the task a run's spec names, with its scoring rule:
// a bundled task, or a file task from the files the run read. It lets
// reports show gold answers and the scorer's extracted answers.
func RecordedTask(cat Catalog, rawSpec []byte) (Task, error) {
	var spec recordedSpec
	if err := json.Unmarshal(rawSpec, &spec); err != nil {
		return nil, fmt.Errorf("unreadable run spec: %w", err)
	}
	cfg := spec.Config
	if d := spec.Dataset; d != nil && d.Path != "" && strings.HasPrefix(cfg.Task, fileTaskPrefix) {
		cfg.Task, cfg.TaskSpec = fileTaskPrefix+d.Path, d.Spec
	}
	return cat.OpenTask(cfg.Task, cfg.TaskSpec, cfg.Rule)
}

// recordedSpec is the part of a run's spec (bench's) that summaries read.
type recordedSpec struct {
	Config     specConfig    `json:"config"`
	PromptPack string        `json:"prompt_pack,omitempty"`
	Rule       string        `json:"rule,omitempty"`
	Dataset    *recordedData `json:"dataset,omitempty"`
}

// recordedData is the part of a run's recorded data (bench's
// tasks.Dataset) summaries read: the files a file task read and the
// digest of the data scored.
type recordedData struct {
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256"`
	Spec   string `json:"spec,omitempty"`
}

// specConfig is the part of a recorded configuration summaries read.
type specConfig struct {
	Task         string                     `json:"task"`
	TaskSpec     string                     `json:"task_spec,omitempty"`
	Rule         string                     `json:"rule,omitempty"`
	PromptDir    string                     `json:"prompt_dir,omitempty"`
	Model        string                     `json:"model"`
	BaseURL      string                     `json:"base_url,omitempty"`
	API          string                     `json:"api,omitempty"`
	ModelParams  map[string]json.RawMessage `json:"model_params,omitempty"`
	Think        string                     `json:"think,omitempty"`
	ThinkTags    string                     `json:"think_tags,omitempty"`
	JudgeModel   string                     `json:"judge_model,omitempty"`
	JudgeBaseURL string                     `json:"judge_base_url,omitempty"`
	Named        []struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"named_endpoints,omitempty"`
}

// settings are the model settings a recorded configuration shows; the
// judge resolved as bench.Config.Judge resolves it (MODEL@NAME on a named
// endpoint unless --judge-base-url says otherwise).
func (c specConfig) settings() ModelSettings {
	m := ModelSettings{API: c.API, ModelParams: c.ModelParams, Think: c.Think, ThinkTags: c.ThinkTags}
	model, url := c.Model, c.BaseURL
	if c.JudgeModel != "" {
		model = c.JudgeModel
	}
	if c.JudgeBaseURL != "" {
		url = c.JudgeBaseURL
	} else if jm, name, named := strings.Cut(c.JudgeModel, "@"); named {
		for _, e := range c.Named {
			if e.Name == name {
				model, url = jm, e.URL
			}
		}
	}
	if model != c.Model || url != c.BaseURL {
		m.JudgeModel, m.JudgeURL = model, url
	}
	return m
}

// ModelSettings say how a run called the model where that is not the
// default and can change its answers.
type ModelSettings struct {
	API         string
	ModelParams map[string]json.RawMessage
	Think       string
	ThinkTags   string
	// JudgeModel and JudgeURL are the judge that scored a judged task's
	// outputs when it is not the run's model ("" otherwise).
	JudgeModel, JudgeURL string
}

// Text renders the settings for tables ("" for the defaults):
// "api=completions reasoning_effort=high think=keep judge=m@URL".
func (m ModelSettings) Text() string {
	var parts []string
	if m.API != "" && m.API != llm.APIChat {
		parts = append(parts, "api="+m.API)
	}
	if len(m.ModelParams) > 0 {
		parts = append(parts, ModelParamsText(m.ModelParams))
	}
	if m.Think == llm.ThinkKeep {
		parts = append(parts, "think=keep")
	}
	if t, err := llm.ParseThinkTags(m.ThinkTags); err == nil && t != llm.DefaultThinkTags && m.Think != llm.ThinkKeep {
		parts = append(parts, "think_tags="+t.String())
	}
	if m.JudgeModel != "" || m.JudgeURL != "" {
		j := "judge=" + m.JudgeModel
		if m.JudgeURL != "" {
			j += "@" + llm.PublicURL(m.JudgeURL)
		}
		parts = append(parts, j)
	}
	return strings.Join(parts, " ")
}

// ModelParamsText renders model parameters for tables: "reasoning_effort=high
// top_k=20", sorted by name.
func ModelParamsText(m map[string]json.RawMessage) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+ParamValueText(m[k]))
	}
	return strings.Join(parts, " ")
}

// ParamValueText is a parameter's value as --param takes it: a string
// unquoted, any other JSON as it is.
func ParamValueText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}
