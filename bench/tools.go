package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
)

// checkTools lets a strategy that acts with tools take the run's (--mcp)
// and refuses --mcp on one that acts with none.
func checkTools(cfg Config, name string, strat strategies.Strategy) error {
	if len(cfg.MCP) == 0 {
		return nil
	}
	if tu, ok := strat.(strategies.ToolUser); !ok || !tu.UseExternalTools() {
		return fmt.Errorf("--mcp: strategy %s acts with no tools (react, reflexion with actor=react and lats do); drop --mcp", name)
	}
	return nil
}

// startTools connects the run's MCP servers and lists their tools; a
// server that cannot start or answer is a one-line error naming it.
// recorded, when not nil, are the servers as a stored run recorded them:
// a server whose tools changed since is refused.
func (e *Engine) startTools(ctx context.Context, p *plan, recorded []tools.Server) error {
	if len(p.cfg.MCP) == 0 || p.tools != nil {
		return nil
	}
	// The task's tools: their names are reserved, and a server's tool
	// equal to one (bench mcp serve's) takes its place.
	own := []tasks.ExternalTool{{Name: "finish"}, {Name: "python"}}
	if tb, ok := p.task.(tasks.Toolbox); ok && len(p.instances) > 0 {
		if ts, err := tb.Tools(p.instances[0]); err == nil {
			for _, t := range ts {
				spec := tasks.ExternalTool{Name: t.Name}
				if !t.Final { // answering stays the agent's
					spec.Description, spec.Schema = t.Description, t.Schema()
				}
				own = append(own, spec)
			}
		}
	}
	set, servers, err := tools.Connect(ctx, p.cfg.MCP, own)
	if err != nil {
		return err
	}
	for i, s := range recorded {
		if i < len(servers) && s.Digest != "" && s.Digest != servers[i].Digest {
			set.Close()
			return fmt.Errorf("mcp server %s lists other tools than when the run started (digest %.12s, now %.12s); resuming would mix two tool sets (start a new run)",
				s.Name, s.Digest, servers[i].Digest)
		}
	}
	for i := range servers {
		servers[i] = servers[i].Recorded()
	}
	p.tools, p.cfg.MCP = set, servers
	return nil
}

// resumeTools are the MCP servers a resumed run connects: those it
// recorded, each replaced by the one given again under its name (bench
// resume --mcp and --mcp-config, an experiment's own). A recorded server
// whose credentials were not stored (tools.Server.Withheld) must be given
// again; one given that the run did not have is refused. What a server is
// stays checked by its tool digest (startTools).
func resumeTools(runID int64, recorded, given []tools.Server) ([]tools.Server, error) {
	out := slices.Clone(recorded)
	again := map[string]bool{}
	for _, g := range given {
		i := slices.IndexFunc(out, func(s tools.Server) bool { return s.Name == g.Name })
		if i < 0 {
			return nil, fmt.Errorf("run %d has no mcp server %s", runID, g.Name)
		}
		out[i], again[g.Name] = g, true
	}
	for _, s := range out {
		if s.Withheld && !again[s.Name] {
			return nil, fmt.Errorf("run %d: mcp server %s was given credentials (in its url, arguments, headers or variables) that are not stored: resume with --mcp-config FILE or --mcp %s=... as given to the run",
				runID, s.Name, s.Name)
		}
	}
	return out, nil
}

// closeTools ends the run's servers.
func (p *plan) closeTools() {
	if p.tools != nil {
		p.tools.Close()
		p.tools = nil
	}
}

// toolsKey identifies the run's tool servers for the config key: each
// one's name, command or URL, reported name and version, tool digest and
// configured variables; "" without servers, so no earlier key changes.
func toolsKey(servers []tools.Server) string {
	if len(servers) == 0 {
		return ""
	}
	list := slices.Clone(servers)
	for i := range list {
		list[i].Timeout = 0
	}
	b, _ := json.Marshal(list)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// usesTools reports whether a configured strategy acts with tools.
func usesTools(spec strategies.Spec, vals param.Values) bool {
	strat, err := spec.New(vals)
	if err != nil {
		return false
	}
	tu, ok := strat.(strategies.ToolUser)
	return ok && tu.UseExternalTools()
}

// decodeMCP reads an experiment file's mcp: block, a mapping of server
// names to a command line or URL, or to {command, args, env, url,
// headers, timeout_seconds}.
func decodeMCP(v *yaml.Node) ([]tools.Server, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a mapping of server names to a command, a URL or {command, args, env, url}")
	}
	var out []tools.Server
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, body := v.Content[i].Value, v.Content[i+1]
		if body.Kind == yaml.ScalarNode {
			s, err := tools.ParseFlag(name + "=" + body.Value)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			continue
		}
		var e struct {
			Command string            `yaml:"command"`
			Args    []string          `yaml:"args"`
			Env     map[string]string `yaml:"env"`
			URL     string            `yaml:"url"`
			Headers map[string]string `yaml:"headers"`
			Timeout float64           `yaml:"timeout_seconds"`
		}
		if err := body.Decode(&e); err != nil {
			return nil, fmt.Errorf("server %s: %v", name, err)
		}
		s := tools.Server{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers,
			Timeout: time.Duration(e.Timeout * float64(time.Second))}
		if err := s.Check(); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
