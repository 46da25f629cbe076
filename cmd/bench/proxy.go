package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/bench"
)

// cmdProxy serves the recording endpoint for a run of its own until
// SIGINT or SIGTERM (main's ctx), for programs bench does not run item by
// item: an agent framework's whole run, a notebook.
func cmdProxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := bench.DefaultConfig()
	fs := newFlags("proxy", stderr)
	name := fs.String("name", "", "name of the run the calls are stored in (required)")
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on (port 0: any free port)")
	back := backendFlags(fs, &cfg)
	if err := parse(fs, args); err != nil {
		return err
	}
	baseSet := false
	fs.Visit(func(f *flag.Flag) { baseSet = baseSet || f.Name == "base-url" })
	if !baseSet {
		cfg.BaseURL = "" // proxy's default is the simulator, not $OPENAI_BASE_URL
	}
	if err := back.load(&cfg); err != nil {
		return usageError{err}
	}
	if err := ignoredSimFlags(fs, cfg.BaseURL); err != nil {
		return usageError{err}
	}
	db := back.db
	st, err := openStore(ctx, *db, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	sum, stats, err := (&bench.Engine{Store: st}).Proxy(ctx, cfg, bench.ProxyOptions{Name: *name, Addr: *addr,
		Ready: func(url, key string) {
			fmt.Fprintf(stdout, "OPENAI_BASE_URL=%s\nOPENAI_API_KEY=%s\n", url, key)
			fmt.Fprintf(stderr, "bench proxy: storing the calls of run %q in %s until interrupted (Ctrl-C); item n at %s/item/n/v1 or with header X-Bench-Item: n\n",
				*name, *db, url[:len(url)-len("/v1")])
		}})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench proxy: run %d %s: %d items, %d calls, %d+%d tokens; %d requests, %d refused\n",
		sum.RunID, sum.Status, sum.N, sum.Calls, sum.PromptTokens, sum.CompletionTokens, stats.Requests, stats.Refused)
	for _, r := range stats.Refusals {
		fmt.Fprintf(stderr, "  refused: %s\n", r)
	}
	return nil
}
