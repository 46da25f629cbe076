package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/report"
	"github.com/reasonbench/reasonbench/results"
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
	apiKey := fs.String("api-key", "", "API key (default $OPENAI_API_KEY; never stored"+keysNote+")")
	fs.StringVar(&cfg.JudgeModel, "judge-model", "", "model scoring a judged task's outputs (creative: coherency); default the run's model")
	fs.StringVar(&cfg.JudgeBaseURL, "judge-base-url", "", "endpoint of the judge model; default the run's endpoint")
	var endpoints stringList
	fs.Var(&endpoints, "endpoint", "a named endpoint NAME=URL[,KEY_ENV] (repeatable), its key from $KEY_ENV; a role's model on it is MODEL@NAME (debate: --set models=gpt-4o@openai,qwen@local)")
	verifierFlags(fs, &cfg)
	verifierKey := verifierKeyFlag(fs)
	judgeKey := judgeKeyFlag(fs)
	loadBudget := budgetFlags(fs, &cfg)
	loadModel := modelFlags(fs, &cfg)
	loadTools := toolFlags(fs, &cfg)
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed sent with every request")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts per request on 429, 5xx, timeouts (exponential backoff with jitter)")
	fs.StringVar(&cfg.Cache, "cache", cfg.Cache, "response cache: readwrite, read or off (a rerun of a finished run then makes no model calls)")
	fs.StringVar(&cfg.PromptDir, "prompts", "", "folder of prompt templates (task/name.txt) overriding the bundled ones")
	fs.StringVar(&cfg.Rule, "rule", "", "scoring rule (default the task's; game24: strict|paper); recorded with the run")
	loadData := dataFlags(fs, &cfg)
	simParams := simFlags(fs)
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout")
	file := fs.String("f", "", "experiment file (YAML): task, seeds, repeats and a list of strategy configurations, lists expanded as a cross product")
	repeats := fs.Int("repeats", 0, "run each configuration R times with seeds seed..seed+R-1 and report mean and 95% interval")
	fs.StringVar(&cfg.Experiment, "experiment", "", "group the run(s) under this experiment id (default with --repeats: repeats-<time>)")
	shardFlag := shardFlag(fs)
	cont := fs.Bool("continue", false, "continue the latest run of this configuration in --db (resume it if unfinished, show it if done) instead of starting a new one, "+
		"e.g. for a requeued or resubmitted cluster task; -f and --repeats always continue")
	if err := parse(fs, args); err != nil {
		return err
	}
	shard, err := shardFlag()
	if err != nil {
		return usageError{err}
	}
	if err := loadBudget(); err != nil {
		return usageError{err}
	}
	if err := loadModel(); err != nil {
		return usageError{err}
	}
	if err := loadTools(); err != nil {
		return usageError{err}
	}
	if err := loadData(); err != nil {
		return usageError{err}
	}
	cfg.Sim = *simParams
	cfg.APIKey = *apiKey
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	cfg.VerifierAPIKey = verifierKey()
	cfg.JudgeAPIKey = judgeKey()
	for _, e := range endpoints {
		ep, err := bench.ParseEndpoint(e)
		if err != nil {
			return usageError{err}
		}
		for _, prev := range cfg.NamedEndpoints {
			if prev.Name == ep.Name {
				return usageError{fmt.Errorf("--endpoint %s is given twice: name each endpoint once", ep.Name)}
			}
		}
		cfg.NamedEndpoints = append(cfg.NamedEndpoints, ep)
	}
	cfg.NamedKeys = bench.EndpointKeys(cfg.NamedEndpoints, os.Getenv)
	if err := checkModelNamed(ctx, fs, cfg); err != nil {
		return err
	}
	if *repeats < 0 {
		return usageError{fmt.Errorf("--repeats %d: must be at least 1", *repeats)}
	}
	if *file != "" {
		if len(sets) > 0 || *preset != "" || cfg.Task != "" || cfg.Strategy != "" {
			return usageError{errors.New("-f: the experiment file names the task and strategies; drop --task, --strategy, --set and --preset")}
		}
		exp, err := bench.LoadExperiment(*file, cfg, *repeats)
		if err != nil {
			return usageError{err}
		}
		if exp.Runs, err = shard.apply(exp.Runs, stderr); err != nil || len(exp.Runs) == 0 {
			return err
		}
		return runExperiment(ctx, exp, bench.Keys{API: cfg.APIKey, Verifier: cfg.VerifierAPIKey, Judge: cfg.JudgeAPIKey}, *db, *asJSON, stdout, stderr)
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
	if err := bench.Check(cfg); err != nil {
		return err
	}
	if *repeats > 1 {
		if cfg.Experiment == "" {
			if shard != nil { // shards started at other times must name one experiment
				return usageError{errors.New("--shard with --repeats: pass --experiment NAME, the same in every shard, so that bench merge finds the runs that belong together")}
			}
			cfg.Experiment = fmt.Sprintf("repeats-%s", time.Now().UTC().Format("20060102-150405"))
		}
		exp := bench.Experiment{ID: cfg.Experiment}
		for r := range *repeats {
			c := cfg
			c.Seed = cfg.Seed + int64(r)
			exp.Runs = append(exp.Runs, c)
		}
		if exp.Runs, err = shard.apply(exp.Runs, stderr); err != nil || len(exp.Runs) == 0 {
			return err
		}
		return runExperiment(ctx, exp, bench.Keys{API: cfg.APIKey, Verifier: cfg.VerifierAPIKey, Judge: cfg.JudgeAPIKey}, *db, *asJSON, stdout, stderr)
	}
	if shard != nil {
		cfgs, err := shard.apply([]bench.Config{cfg}, stderr)
		if err != nil || len(cfgs) == 0 {
			return err
		}
		cfg = cfgs[0]
	}
	st, err := openStore(ctx, *db, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	bar := newProgressBar(stderr)
	eng := &bench.Engine{Store: st, OnProgress: bar.update}
	var sum bench.Summary
	if *cont {
		sum, err = continueRun(ctx, eng, cfg)
	} else {
		sum, err = eng.Run(ctx, cfg)
	}
	bar.finish()
	if err != nil {
		if *cont && sum.RunID == 0 {
			return fmt.Errorf("%w; run the same command again to continue", err)
		}
		return stopped(sum, *db, err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(sum)
	}
	return report.Write(stdout, "md", []report.Row{rowOf(sum)})
}

// continueRun is bench run --continue: the latest run of cfg's
// configuration in the store is resumed if unfinished and summarised if
// done; with none, cfg starts. An experiment of one run does just that.
func continueRun(ctx context.Context, eng *bench.Engine, cfg bench.Config) (bench.Summary, error) {
	sums, err := eng.RunExperiment(ctx, bench.Experiment{ID: cfg.Experiment, Runs: []bench.Config{cfg}},
		bench.Keys{API: cfg.APIKey, Verifier: cfg.VerifierAPIKey, Judge: cfg.JudgeAPIKey})
	if err != nil || len(sums) == 0 {
		return bench.Summary{}, err
	}
	return sums[0], nil
}

// stopped explains a run that did not finish, in one line.
func stopped(sum bench.Summary, db string, err error) error {
	if sum.RunID == 0 {
		return err
	}
	var rp bench.RejectedParamError
	if errors.As(err, &rp) { // redoing the run as it is would fail again
		return usageError{fmt.Errorf("run %d failed: %v", sum.RunID, rp)}
	}
	why := err
	if errors.Is(err, context.Canceled) {
		why = errors.New("interrupted")
	}
	var mc llm.MaxCostError
	if errors.As(err, &mc) {
		return fmt.Errorf("run %d stopped: %v; %d items kept in %s; continue with: bench resume %d --max-cost HIGHER --db %s", sum.RunID, mc, sum.N, db, sum.RunID, db)
	}
	return fmt.Errorf("%w; %d items of run %d are kept in %s; continue with: bench resume %d --db %s", why, sum.N, sum.RunID, db, sum.RunID, db)
}

// runExperiment runs (or continues) every run of an experiment, then
// prints its comparison table.
func runExperiment(ctx context.Context, exp bench.Experiment, keys bench.Keys, db string, asJSON bool, stdout, stderr io.Writer) error {
	st, err := openStore(ctx, db, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(stderr, "experiment %s: %d runs\n", exp.ID, len(exp.Runs))
	bar := newProgressBar(stderr)
	eng := &bench.Engine{Store: st, OnProgress: bar.update}
	sums, err := eng.RunExperiment(ctx, exp, keys)
	bar.finish()
	if err != nil {
		var rp bench.RejectedParamError
		if errors.As(err, &rp) {
			return usageError{fmt.Errorf("experiment %s stopped after %d of %d runs: %v", exp.ID, len(sums), len(exp.Runs), rp)}
		}
		if errors.Is(err, llm.ErrMaxCost) {
			return fmt.Errorf("experiment %s stopped after %d of %d runs (%w); run the same command with a higher --max-cost (a ceiling per run) to continue", exp.ID, len(sums), len(exp.Runs), err)
		}
		if len(sums) < len(exp.Runs) {
			return fmt.Errorf("experiment %s stopped after %d of %d runs (%w); run the same command again to continue", exp.ID, len(sums), len(exp.Runs), err)
		}
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"experiment": exp.ID, "runs": sums})
	}
	st.Close()
	return cmdReport(ctx, []string{"--db", db, "--experiment", exp.ID}, stdout, stderr)
}

// rowOf turns a run summary into a table row (results.RowOf).
func rowOf(s bench.Summary) report.Row { return results.RowOf(s) }

// shardSel is a parsed --shard: shard index of count.
type shardSel struct{ index, count int }

// shardFlag registers --shard on bench run and bench estimate; the returned
// function reads it after parsing (nil: no shard).
func shardFlag(fs *flag.FlagSet) func() (*shardSel, error) {
	v := fs.String("shard", "", "run only shard I/N of the items (and of an experiment's runs), counted from 0, into this --db; "+
		"auto: I and N from a Slurm job array (SLURM_ARRAY_TASK_ID, _COUNT, _MIN) or I from a Kubernetes Indexed Job "+
		"(JOB_COMPLETION_INDEX) with N from $"+bench.ShardEnv+" or auto/N; combine the shards with bench merge")
	return func() (*shardSel, error) {
		if *v == "" {
			return nil, nil
		}
		i, n, err := bench.ParseShard(*v, os.Getenv)
		if err != nil {
			return nil, err
		}
		return &shardSel{i, n}, nil
	}
}

// apply gives each configuration its part of the shard (all of them when
// there is no shard); none left means this shard has nothing to do, which
// it says and is no error (a Slurm array with more tasks than items).
func (s *shardSel) apply(cfgs []bench.Config, stderr io.Writer) ([]bench.Config, error) {
	if s == nil {
		return cfgs, nil
	}
	out, err := bench.ShardRuns(cfgs, s.index, s.count)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		fmt.Fprintf(stderr, "shard %d/%d: no items fall in this shard (fewer items than shards); nothing to run\n", s.index, s.count)
	}
	return out, nil
}
