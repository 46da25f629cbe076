package main

import (
	"context"
	"errors"
	"io"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

// byTool is `bench report --by tool`: the calls to the runs' MCP tools.
const byTool = "tool"

// writeToolReport writes, per selected run that called tools, one row per
// tool and a row (all) with the per-item distributions.
func writeToolReport(ctx context.Context, st *store.Store, runs []store.Run, format string, stdout io.Writer) error {
	rows, err := results.ToolRows(ctx, st, runs)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return usageError{errors.New("--by tool: no selected run called a tool of an MCP server (runs with --mcp do)")}
	}
	return render.WriteTools(stdout, format, rows)
}
