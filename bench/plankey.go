// What identifies a run: its draw scope, config key and recorded spec.

package bench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// drawScope is the seed of a run's draws: the run's seed and the method
// it runs (task and data, strategy and typed parameters, prompts). Two
// configurations are two sets of draws, so two runs in one database share
// no answer through the cache unless they are the same method (a rerun);
// how the model is reached (endpoint, API, replicas, concurrency), the
// item range and a shard are left out, so a sharded run, a sub-range and a
// run over HTTP draw what the whole run in process draws.
func (p *plan) drawScope() int64 {
	key := struct {
		Seed                 int64
		Task, Data, Strategy string
		Params               param.Values
		Prompts              string
	}{Seed: p.cfg.Seed, Task: p.task.Name(), Strategy: p.cfg.Strategy, Params: p.params, Prompts: p.prompts.Pack()}
	if d := datasetOf(p.task); d != nil {
		key.Data = d.SHA256
	}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return int64(binary.LittleEndian.Uint64(sum[:8]) >> 1)
}

// configKey hashes what determines a run's results: two configurations
// with the same key are the same experiment cell (concurrency, timeouts,
// retries and the cache mode do not change results and are left out).
func (p *plan) configKey() string {
	c := p.cfg
	key := struct {
		Task, Strategy, Range, Model, Endpoint, Prompts string
		Params                                          param.Values
		Seed                                            int64
		Sim                                             any
		// Empty for the task's default rule and the bundled prompts, so
		// keys of runs made before they were recorded stay the same.
		Rule string `json:",omitempty"`
		Pack string `json:",omitempty"`
		// Empty for the chat API, no model parameters and thinking split
		// at <think>, for the same reason.
		API         string                     `json:",omitempty"`
		ModelParams map[string]json.RawMessage `json:",omitempty"`
		Think       string                     `json:",omitempty"`
		// A file task's data and spec digests: the same path with other
		// contents is another cell.
		Data string `json:",omitempty"`
		// How calls draw: runs from before identities have none.
		Calls string `json:",omitempty"`
		// A shard's part of the range (shard.go); empty when unsharded.
		Shard string `json:",omitempty"`
		// A judge other than the run's model or endpoint.
		Judge string `json:",omitempty"`
		// The verifier of a strategy that asks one (verifier.go).
		Verifier string `json:",omitempty"`
		// The named endpoints a strategy's models are on (endpoints.go).
		Endpoints []string `json:",omitempty"`
		// The digest of a program's files (strategies.Sourced): an edited
		// script is another cell, though its draws (the scope) are the
		// same, so requests it still sends are found in the cache.
		Sources string `json:",omitempty"`
		// The run's MCP servers and their tool lists (tools.go).
		Tools string `json:",omitempty"`
		// An episode's simulated user on another model than the run's.
		User string `json:",omitempty"`
	}{User: p.userKey(), Tools: toolsKey(c.MCP), Verifier: p.verifierKey(), Calls: p.calls, Task: c.Task, Strategy: c.Strategy, Range: p.rng.String(), Model: c.Model, Endpoint: PublicEndpoint(c.BaseURL),
		Prompts: c.PromptDir, Params: p.params, Seed: c.Seed, ModelParams: c.ModelParams}
	if d := datasetOf(p.task); d != nil && d.Path != "" {
		key.Data = d.SHA256 + " " + d.SpecSHA256
	}
	if c.API == llm.APICompletions {
		key.API = c.API
	}
	if c.SeparateJudge() {
		m, u := c.Judge()
		key.Judge = m + " @ " + PublicEndpoint(u)
	}
	for _, e := range c.NamedEndpoints {
		key.Endpoints = append(key.Endpoints, e.Name+"="+PublicEndpoint(e.URL))
	}
	if c.Think == llm.ThinkKeep {
		key.Think = c.Think
	} else if p.tags != llm.DefaultThinkTags {
		key.Think = p.tags.String()
	}
	if c.Rule != "" {
		key.Rule = tasks.RuleName(p.task)
	}
	if pack := p.prompts.Pack(); pack != prompts.BundledPack {
		key.Pack = pack
	}
	if c.Simulated() {
		key.Sim = c.Sim
	}
	if c.Shard != nil {
		key.Shard = fmt.Sprintf("%d/%d", c.Shard.Part, c.Shard.Count)
	}
	if len(p.sources) > 0 {
		b, _ := json.Marshal(p.sources)
		sum := sha256.Sum256(b)
		key.Sources = hex.EncodeToString(sum[:12])
	}
	b, _ := json.Marshal(key)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// recordedSpec is the run's spec column: everything needed to rerun it.
type recordedSpec struct {
	Config  Config            `json:"config"`
	Params  param.Values      `json:"params"`
	Prompts map[string]string `json:"prompt_hashes"`
	// PromptPack is "bundled" or "folder:HASH" (prompts.Library.Pack).
	PromptPack string `json:"prompt_pack,omitempty"`
	// Rule is the task's scoring rule, name and description.
	Rule string `json:"rule,omitempty"`
	// Dataset names the data scored: its digest (and a file task's paths
	// and spec).
	Dataset *tasks.Dataset `json:"dataset,omitempty"`
	// Calls is CallsByIdentity; empty in runs recorded before it.
	Calls string `json:"calls,omitempty"`
	// UnshardedKey is a shard's config key without the shard: the key of
	// the run bench merge makes of the shards.
	UnshardedKey string `json:"unsharded_key,omitempty"`
	// Replicas are the endpoints that served the run and their calls.
	Replicas []llm.ReplicaStat `json:"replicas,omitempty"`
	// URLCredentials says a URL of the configuration held credentials,
	// which are not recorded: a resume must be given the URL again.
	URLCredentials bool `json:"url_credentials,omitempty"`
	// Sources are the files a strategy whose code lives outside this build
	// runs (strategies.Sourced: a program's script), path → SHA-256.
	Sources map[string]string `json:"sources,omitempty"`
	// SimEndpoints are the parameters of each endpoint that was bench
	// serve-sim ("run" for the run's own, else the --endpoint name).
	SimEndpoints map[string]sim.Params `json:"sim_endpoints,omitempty"`
}

// unshardedKey is the config key of the whole run a shard is part of.
func (p *plan) unshardedKey() string {
	whole := *p
	whole.cfg.Shard = nil
	return whole.configKey()
}
