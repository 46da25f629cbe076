package main

import (
	"context"
	"fmt"
	"io"
	"os"

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
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model name; 'sim' is the built-in simulated model")
	fs.StringVar(&cfg.BaseURL, "base-url", "", "OpenAI-compatible endpoint the calls go to, e.g. http://127.0.0.1:8000/v1 (several, comma-separated: replicas); default the simulator")
	apiKey := fs.String("api-key", "", "API key of --base-url (default $OPENAI_API_KEY; never stored, never given to the program)")
	fs.StringVar(&cfg.Experiment, "experiment", "", "group the run under this experiment id")
	loadBudget := budgetFlags(fs, &cfg)
	loadModel := modelFlags(fs, &cfg)
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed the calls' seeds derive from")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts per request on 429, 5xx, timeouts")
	fs.StringVar(&cfg.Cache, "cache", cfg.Cache, "response cache: readwrite, read or off (a session repeating an earlier one's requests replays them)")
	simParams := simFlags(fs)
	db := dbFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := loadBudget(); err != nil {
		return usageError{err}
	}
	if err := loadModel(); err != nil {
		return usageError{err}
	}
	cfg.Sim = *simParams
	cfg.APIKey = *apiKey
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
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
