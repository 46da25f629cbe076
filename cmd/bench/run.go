package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/strategies"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := bench.DefaultConfig()
	fs := newFlags("run", stderr)
	fs.StringVar(&cfg.Task, "task", "", "task to run (see bench list)")
	fs.StringVar(&cfg.Strategy, "strategy", "", "strategy to run (see bench list)")
	preset := fs.String("preset", "", "a paper configuration, e.g. tot-game24/tot-b5 (see bench list); --set overrides its parameters")
	fs.StringVar(&cfg.Range, "range", "", "instances by row index START:END (default all), e.g. 900:1000")
	var sets stringList
	fs.Var(&sets, "set", "strategy parameter NAME=VALUE (repeatable)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model name; 'sim' is the built-in simulated model")
	fs.StringVar(&cfg.BaseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default $OPENAI_BASE_URL)")
	apiKey := fs.String("api-key", "", "API key (default $OPENAI_API_KEY; never stored)")
	fs.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "model calls in flight at most")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed sent with every request")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts per request on 429, 5xx, timeouts (exponential backoff with jitter)")
	fs.StringVar(&cfg.Cache, "cache", cfg.Cache, "response cache: readwrite, read or off (a rerun of a finished run then makes no model calls)")
	fs.StringVar(&cfg.PromptDir, "prompts", "", "folder of prompt templates (task/name.txt) overriding the bundled ones")
	simParams := simFlags(fs)
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout")
	if err := parse(fs, args); err != nil {
		return err
	}
	raw, err := strategies.ParseSets(sets)
	if err != nil {
		return usageError{err}
	}
	cfg.Params = raw
	if *preset != "" {
		if cfg, err = bench.ApplyPreset(cfg, *preset); err != nil {
			return usageError{err}
		}
	}
	cfg.Sim = *simParams
	cfg.APIKey = *apiKey
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	if err := bench.Check(cfg); err != nil {
		return err
	}
	st, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	bar := newProgressBar(stderr)
	eng := &bench.Engine{Store: st, OnProgress: bar.update}
	sum, err := eng.Run(ctx, cfg)
	bar.finish()
	if err != nil {
		if sum.RunID != 0 {
			fmt.Fprintf(stderr, "run %d: %d items stored before the stop; they are kept in %s\n", sum.RunID, sum.N, *db)
		}
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted")
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(sum)
	}
	return report.Write(stdout, "md", []report.Row{rowOf(sum)})
}

// rowOf turns a run summary into a table row.
func rowOf(s bench.Summary) report.Row {
	return report.Row{
		RunID: s.RunID, Task: s.Task, Strategy: s.Strategy, Params: bench.ParamSummary(s.Strategy, s.Params),
		Model: s.Model, Simulated: s.Simulated, Status: s.Status, N: s.N, Accuracy: s.Accuracy, Metrics: s.Metrics,
		Tokens: s.PromptTokens + s.CompletionTokens, Calls: s.Calls, Cost: s.Cost, WallSeconds: s.WallSeconds,
	}
}
