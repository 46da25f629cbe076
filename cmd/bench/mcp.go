package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
)

// cmdMCP is `bench mcp serve`: a task's tools as an MCP server.
func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(stderr, "usage: bench mcp serve --task TASK [--http ADDR] [--item N]\n  serve  a task's tools as an MCP server, over stdio or streamable HTTP (bench mcp serve -h for flags)")
		return flag.ErrHelp
	}
	if len(args) == 0 || args[0] != "serve" {
		return usageError{errors.New("want `bench mcp serve --task TASK [--http ADDR] [--item N]`")}
	}
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	task := fs.String("task", "", "the task whose tools to serve (hotpotqa: search and lookup over each question's docstore)")
	spec := fs.String("task-spec", "", "a file task's spec file")
	addr := fs.String("http", "", "serve over streamable HTTP on this address (e.g. 127.0.0.1:3001, path /mcp) instead of stdio")
	item := fs.Int("item", 0, "the item (row index) of calls whose _meta names none ("+tools.MetaItem+")")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *task == "" {
		return usageError{errors.New("bench mcp serve: pass --task (see bench list)")}
	}
	t, err := bench.OpenTask(*task, *spec, "")
	if err != nil {
		return usageError{err}
	}
	box, ok := t.(tasks.Toolbox)
	if tb, isEnv := t.(interface{ Toolbox() tasks.Toolbox }); isEnv { // an environment's tools, a database per session
		box, ok = tb.Toolbox(), true
	}
	if !ok {
		return usageError{fmt.Errorf("bench mcp serve: task %s offers no tools", t.Name())}
	}
	insts, err := t.Instances()
	if err != nil {
		return err
	}
	served, err := tools.Serve(t.Name(), box, insts, *item)
	if err != nil {
		return usageError{err}
	}
	if *addr == "" {
		return served.Stdio(ctx)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageError{fmt.Errorf("listen on %s: %w (pick a free --http address)", *addr, err)}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", served.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving %s's tools at http://%s/mcp\n", t.Name(), ln.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
