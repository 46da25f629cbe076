package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
)

// Summary is a run's headline numbers, computed from the store alone.
type Summary struct {
	RunID            int64              `json:"run_id"`
	Task             string             `json:"task"`
	Strategy         string             `json:"strategy"`
	Params           json.RawMessage    `json:"params"`
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
	ReasoningTokens int     `json:"reasoning_tokens,omitempty"`
	Calls           int     `json:"calls"`
	Requests        int     `json:"requests"`
	Cost            float64 `json:"cost"`
	WallSeconds     float64 `json:"wall_seconds"`
	// Rule is the scoring rule's short name ("game24/paper"); PromptPack
	// the prompts ("bundled" or "folder:HASH"). Both from the run's spec.
	Rule       string `json:"rule,omitempty"`
	PromptPack string `json:"prompt_pack,omitempty"`
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
func Summarize(ctx context.Context, st *store.Store, runID int64) (Summary, error) {
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
	s.Rule, s.PromptPack = specRuleAndPack(run.Spec)
	var spec recordedSpec
	if json.Unmarshal(run.Spec, &spec) == nil {
		s.ModelParams = ModelSettingsText(spec.Config)
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
func specRuleAndPack(raw []byte) (rule, pack string) {
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
		if ts, err := LookupTask(spec.Config.Task); err == nil {
			rule = tasks.RuleName(ts.New())
		}
	}
	return rule, pack
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
func RecordedTask(rawSpec []byte) (tasks.Task, error) {
	var spec recordedSpec
	if err := json.Unmarshal(rawSpec, &spec); err != nil {
		return nil, fmt.Errorf("unreadable run spec: %w", err)
	}
	cfg := spec.Config
	if d := spec.Dataset; d != nil && d.Path != "" && IsFileTask(cfg.Task) {
		cfg.Task, cfg.TaskSpec = FileTaskPrefix+d.Path, d.Spec
	}
	return OpenTask(cfg.Task, cfg.TaskSpec, cfg.Rule)
}
