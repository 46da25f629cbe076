package main

import (
	"flag"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/tools"
)

// toolFlags registers the run's MCP servers (--mcp, --mcp-config) and
// --tool-cache; the returned function reads them after parsing.
func toolFlags(fs *flag.FlagSet, cfg *bench.Config) func() error {
	var servers stringList
	fs.Var(&servers, "mcp", "an MCP server whose tools the agent acts with: NAME=COMMAND (stdio) or NAME=http://HOST/PATH (streamable HTTP); repeatable (docs/tools.md)")
	config := fs.String("mcp-config", "", `a file of MCP servers in the mcpServers JSON of Claude Desktop, Cursor and VS Code: {"mcpServers": {"NAME": {"command", "args", "env"} or {"url"}}}`)
	fs.StringVar(&cfg.ToolCache, "tool-cache", tools.CacheReadWrite, "tool call cache: readwrite (a rerun or resume replays recorded results) or off (every call runs live); recorded with the run")
	return func() error {
		if *config != "" {
			list, err := tools.ReadConfig(*config)
			if err != nil {
				return err
			}
			cfg.MCP = append(cfg.MCP, list...)
		}
		for _, v := range servers {
			s, err := tools.ParseFlag(v)
			if err != nil {
				return err
			}
			cfg.MCP = append(cfg.MCP, s)
		}
		if cfg.ToolCache == tools.CacheReadWrite {
			cfg.ToolCache = "" // the default, as runs before it record it
		}
		return tools.CheckAll(cfg.MCP)
	}
}
