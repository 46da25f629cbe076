package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tools"
)

// Experiment is an experiment file expanded into runs: every strategy
// configuration (the cross product of any parameter given as a list) times
// every seed.
type Experiment struct {
	ID   string   // the file's name: field, else the file name without extension
	Runs []Config // in file order, seeds innermost
}

// experimentKeys are the top-level keys an experiment file may have.
var experimentKeys = []string{"name", "task", "range", "model", "base_url", "concurrency", "seed", "seeds", "repeats",
	"cache", "timeout_seconds", "retries", "prompts", "sim", "strategies", "task_spec", "scorer", "baseline", "verifier", "mcp", "tool_cache", "endpoints"}

var simKeys = []string{"skill", "slip", "misjudge", "boost", "focus", "verify_flip", "verify_spread", "conformity"}

// modelKeys are the keys of a model: block (model: NAME is the short form).
var modelKeys = []string{"name", "api", "think", "think_tags", "max_tokens_field", "params", "base_urls"}

// fileError points at a line of an experiment file.
type fileError struct {
	file string
	line int
	msg  string
}

func (e fileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// LoadExperiment reads and expands an experiment file. base supplies the
// defaults (bench run's flags); repeats > 0 overrides the file's seeds with
// base.Seed .. base.Seed+repeats-1.
func LoadExperiment(path string, base Config, repeats int) (Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Experiment{}, fmt.Errorf("experiment file: %w", err)
	}
	return ParseExperiment(filepath.Base(path), data, base, repeats)
}

// ParseExperiment expands an experiment file's contents; name is used in
// error messages and as the default id.
func ParseExperiment(name string, data []byte, base Config, forceRepeats int) (Experiment, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return Experiment{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return Experiment{}, fileError{name, 1, "want a mapping with keys " + strings.Join(experimentKeys, ", ")}
	}
	root := doc.Content[0]
	bad := func(n *yaml.Node, format string, args ...any) error {
		return fileError{name, n.Line, fmt.Sprintf(format, args...)}
	}
	exp := Experiment{ID: strings.TrimSuffix(name, filepath.Ext(name))}
	cfg := base
	// The verifier (--verifier-* or a verifier: block) goes to the runs
	// whose strategy asks one.
	ver := base.Verify
	cfg.Verify = VerifierConfig{}
	// So do the MCP servers (--mcp or an mcp: block), to the runs whose
	// strategy acts with tools.
	servers := base.MCP
	cfg.MCP = nil
	var seeds []int64
	repeats := 1
	var entries *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var err error
		switch k.Value {
		case "name":
			exp.ID, err = scalarString(v)
		case "task":
			cfg.Task, err = scalarString(v)
		case "task_spec":
			cfg.TaskSpec, err = scalarString(v)
		case "scorer":
			cfg.Rule, err = scalarString(v)
		case "range":
			cfg.Range, err = scalarString(v)
		case "model":
			if v.Kind == yaml.MappingNode {
				if err := decodeModel(v, &cfg, bad); err != nil {
					return exp, err
				}
				break
			}
			cfg.Model, err = scalarString(v)
		case "base_url":
			cfg.BaseURL, err = scalarString(v)
		case "cache":
			cfg.Cache, err = scalarString(v)
		case "prompts":
			cfg.PromptDir, err = scalarString(v)
		case "concurrency":
			cfg.Concurrency, err = scalarInt(v)
		case "retries":
			cfg.Retries, err = scalarInt(v)
		case "timeout_seconds":
			var s int
			s, err = scalarInt(v)
			cfg.Timeout = secondsDuration(s)
		case "repeats":
			repeats, err = scalarInt(v)
			if err == nil && repeats < 1 {
				err = fmt.Errorf("want at least 1")
			}
		case "seed":
			var s int
			s, err = scalarInt(v)
			cfg.Seed = int64(s)
		case "seeds":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return exp, bad(v, "seeds: want a list of whole numbers")
			}
			for _, n := range v.Content {
				s, err := scalarInt(n)
				if err != nil {
					return exp, bad(n, "seeds: %v", err)
				}
				seeds = append(seeds, int64(s))
			}
		case "sim":
			err = decodeSim(v, &cfg, bad)
			if fe, ok := err.(fileError); ok {
				return exp, fe
			}
		case "strategies":
			entries = v
		case "mcp":
			var list []tools.Server
			if list, err = decodeMCP(v); err == nil {
				servers = append(servers, list...)
			}
		case "tool_cache":
			cfg.ToolCache, err = scalarString(v)
		case "endpoints":
			if err := decodeEndpoints(v, &cfg, bad); err != nil {
				return exp, err
			}
		case "verifier":
			if err = decodeVerifier(v, &ver, bad); err != nil {
				if fe, ok := err.(fileError); ok {
					return exp, fe
				}
			}
		case "baseline":
			cfg.Baseline, err = scalarString(v)
			if err == nil && strings.TrimSpace(cfg.Baseline) == "" {
				err = fmt.Errorf("want a strategy, optionally with parameters, e.g. `baseline: cotsc` or `baseline: tot b=1`")
			}
		default:
			return exp, bad(k, "unknown key %q (allowed: %s)", k.Value, strings.Join(experimentKeys, ", "))
		}
		if err != nil {
			return exp, bad(v, "%s: %v", k.Value, err)
		}
	}
	if entries == nil || entries.Kind != yaml.SequenceNode || len(entries.Content) == 0 {
		return exp, fileError{name, root.Line, "strategies: want a list like `- cot: {k: 10}`"}
	}
	if forceRepeats > 0 {
		seeds, repeats = nil, forceRepeats
	}
	if seeds == nil {
		for r := range repeats {
			seeds = append(seeds, cfg.Seed+int64(r))
		}
	} else if repeats != 1 && repeats != len(seeds) {
		return exp, fileError{name, root.Line, fmt.Sprintf("repeats %d but %d seeds: give one or the other", repeats, len(seeds))}
	}
	cfg.Experiment = exp.ID
	for _, e := range entries.Content {
		if e.Kind != yaml.MappingNode || len(e.Content) != 2 {
			return exp, bad(e, "strategies: each entry is one strategy name with its parameters, e.g. `- tot: {b: [1, 5]}`")
		}
		sname, pnode := e.Content[0], e.Content[1]
		spec, err := strategies.Lookup(sname.Value)
		if err != nil {
			return exp, bad(sname, "%v", err)
		}
		combos, err := expandParams(pnode, spec.Params, bad)
		if err != nil {
			return exp, err
		}
		for _, params := range combos {
			for _, seed := range seeds {
				c := cfg
				c.Strategy, c.Params, c.Seed = spec.Name, params.values, seed
				vals, err := strategies.Resolve(spec.Params, params.values)
				if err != nil {
					return exp, fileError{name, params.line, fmt.Sprintf("%s: %v", spec.Name, err)}
				}
				if asksVerifier(spec, vals) {
					c.Verify = ver
				}
				if len(servers) > 0 && usesTools(spec, vals) {
					c.MCP = servers
				}
				exp.Runs = append(exp.Runs, c)
			}
		}
	}
	if b := strings.Fields(cfg.Baseline); len(b) > 0 && !slices.ContainsFunc(exp.Runs, func(c Config) bool { return c.Strategy == b[0] }) {
		return exp, fileError{name, root.Line, fmt.Sprintf("baseline %q: no strategy %s in strategies", cfg.Baseline, b[0])}
	}
	for _, c := range exp.Runs {
		if err := Check(c); err != nil {
			return exp, fmt.Errorf("%s: %w", name, err)
		}
	}
	return exp, nil
}

type paramCombo struct {
	values map[string]any
	line   int
}

// expandParams turns {b: [1, 5], n_evaluate: 3} into the cross product of
// its list values, keys in file order.
func expandParams(n *yaml.Node, decl []strategies.Param, bad func(*yaml.Node, string, ...any) error) ([]paramCombo, error) {
	combos := []paramCombo{{values: map[string]any{}, line: n.Line}}
	if n.Kind == yaml.ScalarNode && (n.Value == "" || n.Tag == "!!null") {
		return combos, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, bad(n, "parameters: want a mapping like {k: 10}")
	}
	var names []string
	for _, p := range decl {
		names = append(names, p.Name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(names, k.Value) && !slices.Contains(names, strategies.OtherParams) {
			return nil, bad(k, "unknown parameter %q (allowed: %s)", k.Value, strings.Join(names, ", "))
		}
		var options []*yaml.Node
		if v.Kind == yaml.SequenceNode {
			options = v.Content
		} else {
			options = []*yaml.Node{v}
		}
		var next []paramCombo
		for _, c := range combos {
			for _, o := range options {
				if o.Kind != yaml.ScalarNode {
					return nil, bad(o, "%s: want a value or a list of values", k.Value)
				}
				vals := make(map[string]any, len(c.values)+1)
				for kk, vv := range c.values {
					vals[kk] = vv
				}
				vals[k.Value] = scalarValue(o)
				next = append(next, paramCombo{values: vals, line: o.Line})
			}
		}
		combos = next
	}
	return combos, nil
}

// scalarValue types a YAML scalar: ints, floats and bools by their tag,
// everything else as text; Resolve checks it against the declaration.
func scalarValue(n *yaml.Node) any {
	switch n.Tag {
	case "!!int":
		if v, err := strconv.Atoi(n.Value); err == nil {
			return v
		}
	case "!!float":
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return v
		}
	case "!!bool":
		if v, err := strconv.ParseBool(n.Value); err == nil {
			return v
		}
	}
	return n.Value
}

func scalarString(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("want text")
	}
	return n.Value, nil
}

func scalarInt(n *yaml.Node) (int, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, fmt.Errorf("want a whole number, got %q", n.Value)
	}
	return strconv.Atoi(n.Value)
}

// decodeModel reads a model: block: the model's name, the API, thinking
// and max_tokens settings, and params sent verbatim as request body fields
// (merged over --param).
func decodeModel(n *yaml.Node, cfg *Config, bad func(*yaml.Node, string, ...any) error) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "name":
			cfg.Model, err = scalarString(v)
		case "api":
			cfg.API, err = scalarString(v)
		case "think":
			cfg.Think, err = scalarString(v)
		case "think_tags":
			cfg.ThinkTags, err = scalarString(v)
		case "max_tokens_field":
			cfg.MaxTokensField, err = scalarString(v)
		case "base_urls": // replicas of the model; calls go to the least busy
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return bad(v, "model.base_urls: want a list of base URLs, e.g. [http://node1:8000/v1, http://node2:8000/v1]")
			}
			var urls []string
			for _, u := range v.Content {
				s, err := scalarString(u)
				if err != nil || strings.Contains(s, ",") || strings.TrimSpace(s) == "" {
					return bad(u, "model.base_urls: want one base URL per entry")
				}
				urls = append(urls, strings.TrimSpace(s))
			}
			cfg.BaseURL = strings.Join(urls, ",")
		case "params":
			if v.Kind != yaml.MappingNode {
				return bad(v, "model.params: want a mapping like {reasoning_effort: high}")
			}
			params := maps.Clone(cfg.ModelParams)
			if params == nil {
				params = map[string]json.RawMessage{}
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				var val any
				if err := pv.Decode(&val); err != nil {
					return bad(pv, "model.params.%s: %v", pk.Value, err)
				}
				raw, err := json.Marshal(val)
				if err != nil {
					return bad(pv, "model.params.%s: not representable as JSON: %v", pk.Value, err)
				}
				if err := checkModelParam(pk.Value, raw); err != nil {
					return bad(pk, "model.params: %v", err)
				}
				params[pk.Value] = raw
			}
			cfg.ModelParams = params
		default:
			return bad(k, "unknown key model.%s (allowed: %s)", k.Value, strings.Join(modelKeys, ", "))
		}
		if err != nil {
			return bad(v, "model.%s: %v", k.Value, err)
		}
	}
	return nil
}

func decodeSim(n *yaml.Node, cfg *Config, bad func(*yaml.Node, string, ...any) error) error {
	if n.Kind != yaml.MappingNode {
		return bad(n, "sim: want a mapping like {skill: 0.5}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil {
			return bad(v, "sim.%s: want a number", k.Value)
		}
		switch k.Value {
		case "skill":
			cfg.Sim.Skill = f
		case "slip":
			cfg.Sim.Slip = f
		case "misjudge":
			cfg.Sim.Misjudge = f
		case "boost":
			cfg.Sim.Boost = f
		case "focus":
			cfg.Sim.Focus = f
		case "verify_flip":
			cfg.Sim.VerifyFlip = f
		case "verify_spread":
			cfg.Sim.VerifySpread = f
		case "conformity":
			cfg.Sim.Conformity = f
		default:
			return bad(k, "unknown key sim.%s (allowed: %s)", k.Value, strings.Join(simKeys, ", "))
		}
	}
	return nil
}

// decodeEndpoints reads an experiment file's endpoints: block, NAME:
// URL[,KEY_ENV] as --endpoint NAME=URL[,KEY_ENV]; a model of any role is
// then MODEL@NAME, its key read from $KEY_ENV.
func decodeEndpoints(n *yaml.Node, cfg *Config, bad func(*yaml.Node, string, ...any) error) error {
	if n.Kind != yaml.MappingNode {
		return bad(n, "endpoints: want a mapping like {local: \"http://127.0.0.1:8000/v1\", openai: \"https://api.openai.com/v1,OPENAI_API_KEY\"}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		u, err := scalarString(v)
		if err != nil {
			return bad(v, "endpoints: %s: %v", k.Value, err)
		}
		ep, err := ParseEndpoint(k.Value + "=" + u)
		if err != nil {
			return bad(k, "endpoints: %v", err)
		}
		for _, prev := range cfg.NamedEndpoints {
			if prev.Name == ep.Name {
				return bad(k, "endpoints: %s is named twice (in the file, or by --endpoint too): name each endpoint once", ep.Name)
			}
		}
		cfg.NamedEndpoints = append(cfg.NamedEndpoints, ep)
	}
	return nil
}
