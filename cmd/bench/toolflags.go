package main

import (
	"flag"
	"os"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/tools"
)

// toolFlags registers the run's MCP servers (--mcp, --mcp-config) and
// --tool-cache; the returned function reads them after parsing.
func toolFlags(fs *flag.FlagSet, cfg *bench.Config) func() error {
	servers := serverFlags(fs, "an MCP server whose tools the agent acts with: NAME=COMMAND (stdio) or NAME=http://HOST/PATH (streamable HTTP); repeatable (docs/tools.md)")
	fs.StringVar(&cfg.ToolCache, "tool-cache", tools.CacheReadWrite, "tool call cache: readwrite (a rerun or resume replays recorded results) or off (every call runs live); recorded with the run")
	return func() error {
		list, err := servers()
		if err != nil {
			return err
		}
		cfg.MCP = append(cfg.MCP, list...)
		if cfg.ToolCache == tools.CacheReadWrite {
			cfg.ToolCache = "" // the default, as runs before it record it
		}
		return tools.CheckAll(cfg.MCP)
	}
}

// serverFlags registers --mcp (documented as doc says) and --mcp-config;
// the returned function reads the servers after parsing, their
// credentials registered for redaction (tools.Register) before any
// message can quote them.
func serverFlags(fs *flag.FlagSet, doc string) func() ([]tools.Server, error) {
	var servers stringList
	fs.Var(&servers, "mcp", doc)
	config := fs.String("mcp-config", "", `a file of MCP servers in the mcpServers JSON of Claude Desktop, Cursor and VS Code: {"mcpServers": {"NAME": {"command", "args", "env"} or {"url", "headers"}}}`)
	return func() ([]tools.Server, error) {
		var out []tools.Server
		if *config != "" {
			list, err := tools.ReadConfig(*config)
			if err != nil {
				return nil, err
			}
			out = append(out, list...)
		}
		for _, v := range servers {
			s, err := tools.ParseFlag(v)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		tools.Register(out, os.Getenv)
		return out, tools.CheckAll(out)
	}
}
