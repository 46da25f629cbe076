package bench

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/reasonbench/reasonbench/store"
)

// MergeInfo says, for bench merge, what determines a run's results (the
// fields shards must share: task, data, strategy parameters, model and its
// parameters, prompts, scoring rule, seed, simulator, range and code
// version; not the endpoint, since each node of a cluster serves its own),
// which shard it is, and the key and spec of the run its shards make.
func MergeInfo(r store.Run) (store.MergeInfo, error) {
	var spec recordedSpec
	if err := json.Unmarshal(r.Spec, &spec); err != nil {
		return store.MergeInfo{}, fmt.Errorf("unreadable spec: %w", err)
	}
	c := spec.Config
	dataset := ""
	if spec.Dataset != nil {
		dataset = spec.Dataset.SHA256
	}
	modelParams, _ := json.Marshal(struct {
		API            string                     `json:"api,omitempty"`
		Params         map[string]json.RawMessage `json:"params,omitempty"`
		Think          string                     `json:"think,omitempty"`
		ThinkTags      string                     `json:"think_tags,omitempty"`
		MaxTokensField string                     `json:"max_tokens_field,omitempty"`
	}{c.API, c.ModelParams, c.Think, c.ThinkTags, c.MaxTokensField})
	promptHashes, _ := json.Marshal(spec.Prompts)
	sim := ""
	if r.Simulated {
		sim = string(r.SimParams)
	}
	info := store.MergeInfo{
		Fields: []store.MergeField{
			{Name: "experiment", Value: r.Experiment},
			{Name: "task", Value: r.Task},
			{Name: "dataset", Value: dataset},
			{Name: "strategy", Value: r.Strategy},
			{Name: "strategy parameters", Value: string(r.Params)},
			{Name: "model", Value: r.Model},
			{Name: "model parameters", Value: string(modelParams)},
			{Name: "prompts", Value: spec.PromptPack + " " + string(promptHashes)},
			{Name: "scoring rule", Value: spec.Rule},
			{Name: "seed", Value: strconv.FormatInt(r.Seed, 10)},
			{Name: "simulator", Value: sim},
			{Name: "verifier", Value: verifierField(c.Verify)},
			{Name: "user model", Value: c.UserModel},
			{Name: "range", Value: r.Range},
			{Name: "code version", Value: r.CodeVersion},
		},
		Key: r.ConfigKey,
	}
	if s := c.Shard; s != nil {
		info.Shard = &store.MergeShard{Index: s.Index, Count: s.Count, Part: s.Part, Slot: s.Slot}
		if spec.UnshardedKey != "" {
			info.Key = spec.UnshardedKey
		}
	}
	// The merged run's spec: the shard's, without the shard and what one
	// process saw (its replicas).
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.Spec, &raw); err != nil {
		return store.MergeInfo{}, fmt.Errorf("unreadable spec: %w", err)
	}
	delete(raw, "unsharded_key")
	delete(raw, "replicas")
	if cfgRaw, ok := raw["config"]; ok {
		var cfg map[string]json.RawMessage
		if err := json.Unmarshal(cfgRaw, &cfg); err == nil {
			delete(cfg, "shard")
			raw["config"], _ = json.Marshal(cfg)
		}
	}
	info.Spec, _ = json.Marshal(raw)
	return info, nil
}
