package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// cmdEstimate predicts what `bench run` with the same flags would use on a
// model, from dry runs on the simulator in a throwaway database: it never
// opens the results database and makes no network call.
func cmdEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := bench.DefaultConfig()
	fs := newFlags("estimate", stderr)
	// run's own flags, so that a run command line is estimated as it is:
	// --model names the tokenizer and prices (default the run's model);
	// --base-url, --api-key, --timeout, --retries and --cache change nothing
	// sent, and the dry run uses a temporary database, never --db.
	back := backendFlags(fs, &cfg)
	plan := planFlags(fs, &cfg)
	skills := fs.String("skills", "0.2,0.5,0.8", "simulator skill levels of the dry runs (comma-separated); the estimate spans them")
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
	if err := plan.load(&cfg); err != nil {
		return usageError{err}
	}
	model := new(string)
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "model" {
			*model = cfg.Model
		}
	})
	sets, preset, file, repeats, asJSON := plan.sets, plan.preset, plan.file, plan.repeats, plan.asJSON
	levels, err := parseSkills(*skills)
	if err != nil {
		return usageError{err}
	}
	var cfgs []bench.Config
	switch {
	case *file != "":
		if len(sets) > 0 || *preset != "" || cfg.Task != "" || cfg.Strategy != "" {
			return usageError{errors.New("-f: the experiment file names the task and strategies; drop --task, --strategy, --set and --preset")}
		}
		exp, err := bench.LoadExperiment(*file, cfg, *repeats)
		if err != nil {
			return usageError{err}
		}
		cfgs = exp.Runs
	default:
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
		for r := range max(*repeats, 1) {
			c := cfg
			c.Seed = cfg.Seed + int64(r)
			cfgs = append(cfgs, c)
		}
	}
	if cfgs, err = shard.apply(cfgs, stderr); err != nil || len(cfgs) == 0 {
		return err
	}
	est, err := bench.EstimateRuns(ctx, cfgs, *model, cfg.Prices, levels)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(est)
	}
	return writeEstimate(stdout, est)
}

func parseSkills(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("--skills %q: want comma-separated numbers in [0, 1]", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func writeEstimate(w io.Writer, est bench.Estimate) error {
	fmt.Fprintf(w, "Estimate for %s from a SIMULATED dry run (simulator skills %s): the prompts are the ones bench run would send; the number of calls and the completions come from the simulator, not from %s.\n\n",
		est.Model, joinFloats(est.Skills), est.Model)
	header := []string{"run", "sim skill", "items", "calls", "cache hits", "prompt tokens", "completion tokens", "cost (USD)"}
	right := []bool{false, true, true, true, true, true, true, true}
	var body [][]string
	rows := est.Rows
	if len(est.Rows) > len(est.Totals) {
		rows = append(rows, est.Totals...)
	}
	for _, r := range rows {
		body = append(body, []string{r.Run, ftoa2(r.Skill), strconv.Itoa(r.Items), strconv.Itoa(r.Calls), strconv.Itoa(r.CacheHits),
			strconv.Itoa(r.PromptTokens), strconv.Itoa(r.CompletionTokens), costText(r.Cost, r.Priced)})
	}
	if err := render.Markdown(w, header, body, right); err != nil {
		return err
	}
	calls := func(r bench.EstimateRow) float64 { return float64(r.Calls) }
	prompt := func(r bench.EstimateRow) float64 { return float64(r.PromptTokens) }
	completion := func(r bench.EstimateRow) float64 { return float64(r.CompletionTokens) }
	cost := func(r bench.EstimateRow) float64 { return r.Cost }
	lo, hi := est.Range(calls)
	fmt.Fprintf(w, "\nRange over simulator skills %s: %s calls, %s prompt tokens, %s completion tokens",
		joinFloats(est.Skills), span(lo, hi, "%.0f"), spanTokens(est.Range(prompt)), spanTokens(est.Range(completion)))
	if est.Price != nil {
		lo, hi = est.Range(cost)
		fmt.Fprintf(w, ", %s.\n", span(lo, hi, "$%.2f"))
	} else {
		fmt.Fprintf(w, "; cost unknown: no price for %s (pass --prices FILE).\n", est.Model)
	}
	fmt.Fprintln(w)
	if est.Exact {
		fmt.Fprintf(w, "- Tokens: %s, %s's tokenizer", est.Encoding, est.Model)
	} else {
		fmt.Fprintf(w, "- Tokens: %s as an APPROXIMATION of %s's tokenizer, which is not bundled", est.Encoding, est.Model)
	}
	fmt.Fprintln(w, ", with the chat format's overhead (3 tokens a message and 3 to prime the reply, as OpenAI counts); tool definitions are counted as their JSON.")
	if est.Price != nil {
		fmt.Fprintf(w, "- Price: $%g per 1M prompt tokens, $%g per 1M completion tokens (built-in table checked %s, or --prices).\n",
			est.Price.Prompt, est.Price.Completion, llm.PricesChecked)
	}
	fmt.Fprintln(w, "- Prompts on --api completions are counted as their text alone; with --max-n a prompt is counted once per request it needs.")
	fmt.Fprintln(w, "- One request per call (the server honours n); a draw the method declares shared (ToT's value_cache=run) is made once and its other askers cost nothing; reasoning models' hidden reasoning tokens are not simulated.")
	return nil
}

func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = ftoa2(x)
	}
	return strings.Join(s, ", ")
}

func ftoa2(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func span(lo, hi float64, format string) string {
	if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format, lo) + "–" + fmt.Sprintf(format, hi)
}

func spanTokens(lo, hi float64) string {
	if hi >= 1e5 {
		return span(lo/1e6, hi/1e6, "%.2fM")
	}
	return span(lo, hi, "%.0f")
}

func costText(c float64, priced bool) string {
	if !priced {
		return "unknown"
	}
	return fmt.Sprintf("%.2f", c)
}
