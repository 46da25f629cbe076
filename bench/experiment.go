package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tools"
)

// Experiment is an experiment file expanded into runs: every strategy
// configuration (the cross product of any parameter given as a list) times
// every seed.
type Experiment struct {
	ID   string   // the file's name: field, else the file name without extension
	Runs []Config // in file order, seeds innermost
}

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

// experimentFile is an experiment file's top level: a field a key, in
// the order messages list them, each pointing at what it sets (bound by
// ParseExperiment; a key the file leaves out keeps bench run's flag).
type experimentFile struct {
	Name           *string         `yaml:"name"`
	Task           *string         `yaml:"task"`
	Range          *string         `yaml:"range"`
	Model          *modelBlock     `yaml:"model"`
	BaseURL        *string         `yaml:"base_url"`
	Concurrency    *int            `yaml:"concurrency"`
	Seed           *int64          `yaml:"seed"`
	Seeds          *seedList       `yaml:"seeds"`
	Repeats        *repeatCount    `yaml:"repeats"`
	Cache          *string         `yaml:"cache"`
	TimeoutSeconds *seconds        `yaml:"timeout_seconds"`
	Retries        *int            `yaml:"retries"`
	Prompts        *string         `yaml:"prompts"`
	Sim            *simBlock       `yaml:"sim"`
	Strategies     *yaml.Node      `yaml:"strategies"`
	TaskSpec       *string         `yaml:"task_spec"`
	Scorer         *string         `yaml:"scorer"`
	Baseline       *baseline       `yaml:"baseline"`
	Verifier       *VerifierConfig `yaml:"verifier"`
	MCP            *mcpServers     `yaml:"mcp"`
	ToolCache      *string         `yaml:"tool_cache"`
	Endpoints      *namedEndpoints `yaml:"endpoints"`
}

// modelBlock is a model: block (model: NAME is the short form): the
// model's name, the API, thinking and max_tokens settings, params sent
// verbatim as request body fields (merged over --param), replicas, and
// the model of an episode's simulated user (--user-model).
type modelBlock struct {
	Name           *string      `yaml:"name"`
	API            *string      `yaml:"api"`
	Think          *string      `yaml:"think"`
	ThinkTags      *string      `yaml:"think_tags"`
	MaxTokensField *string      `yaml:"max_tokens_field"`
	Params         *modelParams `yaml:"params"`
	BaseURLs       *baseURLs    `yaml:"base_urls"`
	UserModel      *string      `yaml:"user_model"`
}

// notMapping takes model: NAME.
func (m *modelBlock) notMapping(n *yaml.Node) (err error) {
	*m.Name, err = scalarString(n)
	return err
}

// simBlock is a sim: block, the simulator's parameters by their yaml tags.
type simBlock sim.Params

func (*simBlock) notMapping(*yaml.Node) error {
	return errors.New("want a mapping like {skill: 0.5}")
}

// seedList is seeds: [3, 4], the seeds of every configuration.
type seedList []int64

func (s *seedList) decodeKey(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return errors.New("want a list of whole numbers")
	}
	for _, e := range n.Content {
		i, err := scalarInt(e)
		if err != nil {
			return nodeError{node: e, err: err}
		}
		*s = append(*s, int64(i))
	}
	return nil
}

// repeatCount is repeats: N, at least 1.
type repeatCount int

func (r *repeatCount) decodeKey(n *yaml.Node) error {
	i, err := scalarInt(n)
	*r = repeatCount(i)
	if err == nil && i < 1 {
		err = errors.New("want at least 1")
	}
	return err
}

// seconds is a duration given in whole seconds.
type seconds time.Duration

func (s *seconds) decodeKey(n *yaml.Node) error {
	i, err := scalarInt(n)
	*s = seconds(secondsDuration(i))
	return err
}

// baseline is the experiment's baseline configuration, a strategy
// optionally with parameters.
type baseline string

func (b *baseline) decodeKey(n *yaml.Node) error {
	s, err := scalarString(n)
	*b = baseline(s)
	if err == nil && strings.TrimSpace(s) == "" {
		err = errors.New("want a strategy, optionally with parameters, e.g. `baseline: cotsc` or `baseline: tot b=1`")
	}
	return err
}

// modelParams are model.params, merged over the ones set so far.
type modelParams map[string]json.RawMessage

func (p *modelParams) decodeKey(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("want a mapping like {reasoning_effort: high}")
	}
	params := maps.Clone(*p)
	if params == nil {
		params = modelParams{}
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		pk, pv := n.Content[j], n.Content[j+1]
		var val any
		if err := pv.Decode(&val); err != nil {
			return nodeError{pv, "." + pk.Value, err}
		}
		raw, err := json.Marshal(val)
		if err != nil {
			return nodeError{pv, "." + pk.Value, fmt.Errorf("not representable as JSON: %v", err)}
		}
		if err := checkModelParam(pk.Value, raw); err != nil {
			return nodeError{node: pk, err: err}
		}
		params[pk.Value] = raw
	}
	*p = params
	return nil
}

// baseURLs are model.base_urls, replicas of the model (calls go to the
// least busy), kept as the run's comma-separated base URL.
type baseURLs string

func (b *baseURLs) decodeKey(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return errors.New("want a list of base URLs, e.g. [http://node1:8000/v1, http://node2:8000/v1]")
	}
	var urls []string
	for _, u := range n.Content {
		s, err := scalarString(u)
		if err != nil || strings.Contains(s, ",") || strings.TrimSpace(s) == "" {
			return nodeError{node: u, err: errors.New("want one base URL per entry")}
		}
		urls = append(urls, strings.TrimSpace(s))
	}
	*b = baseURLs(strings.Join(urls, ","))
	return nil
}

// mcpServers are the servers of an mcp: block (decodeMCP), added to
// --mcp's.
type mcpServers []tools.Server

func (m *mcpServers) decodeKey(n *yaml.Node) error {
	list, err := decodeMCP(n)
	*m = append(*m, list...)
	return err
}

// namedEndpoints is an endpoints: block, NAME: URL[,KEY_ENV] as --endpoint
// NAME=URL[,KEY_ENV]; a model of any role is then MODEL@NAME, its key read
// from $KEY_ENV.
type namedEndpoints []Endpoint

func (e *namedEndpoints) decodeKey(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("want a mapping like {local: \"http://127.0.0.1:8000/v1\", openai: \"https://api.openai.com/v1,OPENAI_API_KEY\"}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		u, err := scalarString(v)
		if err != nil {
			return nodeError{node: v, err: fmt.Errorf("%s: %v", k.Value, err)}
		}
		ep, err := ParseEndpoint(k.Value + "=" + u)
		if err != nil {
			return nodeError{node: k, err: err}
		}
		for _, prev := range *e {
			if prev.Name == ep.Name {
				return nodeError{node: k, err: fmt.Errorf("%s is named twice (in the file, or by --endpoint too): name each endpoint once", ep.Name)}
			}
		}
		*e = append(*e, ep)
	}
	return nil
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
		keys := strings.Join(keyNames(reflect.TypeFor[experimentFile]()), ", ")
		return Experiment{}, fileError{name, 1, "want a mapping with keys " + keys}
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
	servers := mcpServers(base.MCP)
	cfg.MCP = nil
	var seeds seedList
	repeats := repeatCount(1)
	var entries yaml.Node
	file := experimentFile{
		Name:    &exp.ID,
		Task:    &cfg.Task,
		Range:   &cfg.Range,
		BaseURL: &cfg.BaseURL,
		Model: &modelBlock{
			Name:           &cfg.Model,
			API:            &cfg.API,
			Think:          &cfg.Think,
			ThinkTags:      &cfg.ThinkTags,
			MaxTokensField: &cfg.MaxTokensField,
			Params:         (*modelParams)(&cfg.ModelParams),
			BaseURLs:       (*baseURLs)(&cfg.BaseURL),
			UserModel:      &cfg.UserModel,
		},
		Concurrency:    &cfg.Concurrency,
		Seed:           &cfg.Seed,
		Seeds:          &seeds,
		Repeats:        &repeats,
		Cache:          &cfg.Cache,
		TimeoutSeconds: (*seconds)(&cfg.Timeout),
		Retries:        &cfg.Retries,
		Prompts:        &cfg.PromptDir,
		Sim:            (*simBlock)(&cfg.Sim),
		Strategies:     &entries,
		TaskSpec:       &cfg.TaskSpec,
		Scorer:         &cfg.Rule,
		Baseline:       (*baseline)(&cfg.Baseline),
		Verifier:       &ver,
		MCP:            &servers,
		ToolCache:      &cfg.ToolCache,
		Endpoints:      (*namedEndpoints)(&cfg.NamedEndpoints),
	}
	if err := decodeKeys(root, "", &file); err != nil {
		return exp, inFile(name, err)
	}
	if entries.Kind != yaml.SequenceNode || len(entries.Content) == 0 {
		return exp, fileError{name, root.Line, "strategies: want a list like `- cot: {k: 10}`"}
	}
	if forceRepeats > 0 {
		seeds, repeats = nil, repeatCount(forceRepeats)
	}
	if seeds == nil {
		for r := range int64(repeats) {
			seeds = append(seeds, cfg.Seed+r)
		}
	} else if repeats != 1 && int(repeats) != len(seeds) {
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
				vals, err := param.Resolve(spec.Params, params.values)
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
func expandParams(n *yaml.Node, decl []param.Param, bad func(*yaml.Node, string, ...any) error) ([]paramCombo, error) {
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
		if !slices.Contains(names, k.Value) && !slices.Contains(names, param.OtherParams) {
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
