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
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/strategies/param"
)

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := bench.DefaultConfig()
	fs := newFlags("run", stderr)
	back := backendFlags(fs, &cfg)
	plan := planFlags(fs, &cfg)
	cont := fs.Bool("continue", false, "continue the latest run of this configuration in --db (resume it if unfinished, show it if done) instead of starting a new one, "+
		"e.g. for a requeued or resubmitted cluster task; -f and --repeats always continue")
	force := fs.Bool("force", false, "with --continue, -f or --repeats: take over a run that another process holds, when you know that process is gone "+
		"(without --force a run is taken over once its holder's heartbeat is 30 s old, or at once when the holder was a process of this machine that ended)")
	if err := parse(fs, args); err != nil {
		return err
	}
	shard, err := plan.shard()
	if err != nil {
		return usageError{err}
	}
	if err := back.load(&cfg); err != nil {
		return usageError{err}
	}
	if err := ignoredSimFlags(fs, cfg.BaseURL); err != nil {
		return usageError{err}
	}
	if err := plan.load(&cfg); err != nil {
		return usageError{err}
	}
	if err := checkModelNamed(ctx, fs, cfg); err != nil {
		return err
	}
	sets, preset, file, repeats, db, asJSON := plan.sets, plan.preset, plan.file, plan.repeats, back.db, plan.asJSON
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
		return runExperiment(ctx, exp, bench.Keys{API: cfg.APIKey, Verifier: cfg.VerifierAPIKey, Judge: cfg.JudgeAPIKey}, *db, *asJSON, *force, stdout, stderr)
	}
	raw, err := param.ParseSets(sets)
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
		return runExperiment(ctx, exp, bench.Keys{API: cfg.APIKey, Verifier: cfg.VerifierAPIKey, Judge: cfg.JudgeAPIKey}, *db, *asJSON, *force, stdout, stderr)
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
	eng := &bench.Engine{Store: st, OnProgress: bar.update, Force: *force}
	bar.start(cfg.BaseURL)
	var sum bench.Summary
	if *cont {
		sum, err = continueRun(ctx, eng, cfg)
	} else {
		sum, err = eng.Run(ctx, cfg)
	}
	bar.finish()
	warnToolFailures(stderr, sum)
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
	return render.Write(stdout, "md", []render.Row{rowOf(sum)})
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
func runExperiment(ctx context.Context, exp bench.Experiment, keys bench.Keys, db string, asJSON, force bool, stdout, stderr io.Writer) error {
	st, err := openStore(ctx, db, stderr)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(stderr, "experiment %s: %d runs\n", exp.ID, len(exp.Runs))
	bar := newProgressBar(stderr)
	eng := &bench.Engine{Store: st, OnProgress: bar.update, Force: force}
	if len(exp.Runs) > 0 {
		bar.start(exp.Runs[0].BaseURL)
	}
	sums, err := eng.RunExperiment(ctx, exp, keys)
	bar.finish()
	warnToolFailures(stderr, sums...)
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
func rowOf(s bench.Summary) render.Row { return results.RowOf(s) }

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
