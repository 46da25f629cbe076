// Command bench runs, stores and reports comparisons of LLM reasoning
// strategies. See `bench help`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/suggest"
)

const usage = `bench: compare LLM reasoning strategies on the same tasks and model

usage:
  bench run --task game24 --strategy cot --range 900:1000 --set k=10 [flags]
  bench report [--last N | --runs ID,...] [--format md|csv|latex|json]
  bench report --experiment ID [--format md|csv|latex|json] [--columns A,B]   one row per configuration, 95% intervals
  bench plot --experiment ID --x tokens|calls|cost|wall [--y accuracy|per_trial] --out fig.svg|.png
  bench plot --experiment ID --frontier [--x tokens|cost] --out fig.png   accuracy per budget, CoT-SC over k', Pareto frontier
  bench compare [--baseline RUN] RUN RUN... [--format md|csv|latex|json] [--level 0.95]   paired differences, McNemar, Holm
  bench power --p0 P --delta D [--discordant F | --pilot RUN,RUN] [--alpha 0.05] [--power 0.8] [--json]   items needed (Connor 1987);
                                                             --n N instead of --delta: the minimum detectable difference
  bench report --by k [--runs ID]                              CoT-SC's vote and best-of-k at every k' <= k from one run
  bench export RUN [--format jsonl] [--out FILE] [--calls]
  bench export RUN... --format parquet --out DIR             runs, items and calls tables for pandas/polars
  bench score --task game24 --in FILE.jsonl
  bench resume RUN | bench resume --last
  bench show RUN [--item I]
  bench list [tasks|strategies|presets|models] [--db F]      what can be run (and the runs in F)
  bench rm RUN... [--keep-cache] [--force]                   delete runs; unused stored texts are collected
  bench db stats [--json] | bench db vacuum                  sizes per table and run; shrink the file
  bench run ... --shard I/N|auto --db shard-I.db             one slice of a run (Slurm arrays, Indexed Jobs: docs/cluster.md)
  bench merge --out all.db shard-*.db                        the shards' runs as one run per configuration
  bench view [--db F] [--addr 127.0.0.1:8090] [--open]         browse runs, trees and comparisons (read-only)
  bench serve-sim --addr 127.0.0.1:8088
  bench mcp serve --task TASK [--http ADDR] [--item N]         a task's tools as an MCP server (stdio, or streamable HTTP)
  bench proxy --name NAME [--model M --base-url URL ...]      a recording endpoint for any program until Ctrl-C (docs/programs.md)
  bench prompts import --from tot|reflexion|debate|tau-bench SRC --out DIR | bench prompts export DIR
  bench estimate --preset tot-game24/tot-b5 --model gpt-4   calls, tokens and cost from a simulated dry run

  bench --version                                            module version and VCS revision of this binary

Run 'bench COMMAND -h' for a command's flags. With no --base-url, runs use the
built-in simulated model (--model sim), offline; its results are labelled simulated.
`

// exitUsage is the exit code for bad input the user must fix.
const exitUsage = 2

// usageError is an error the user fixes by changing the command line.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmds := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"run":       cmdRun,
		"report":    cmdReport,
		"score":     cmdScore,
		"list":      cmdList,
		"show":      cmdShow,
		"resume":    cmdResume,
		"serve-sim": cmdServeSim,
		"mcp":       cmdMCP,
		"proxy":     cmdProxy,
		"plot":      cmdPlot,
		"export":    cmdExport,
		"prompts":   cmdPrompts,
		"estimate":  cmdEstimate,
		"view":      cmdView,
		"rm":        cmdRm,
		"db":        cmdDB,
		"merge":     cmdMerge,
		"compare":   cmdCompare,
		"power":     cmdPower,
	}
	name, rest := args[0], args[1:]
	if name == "help" && len(rest) > 0 {
		if _, ok := cmds[rest[0]]; ok { // bench help run is bench run -h
			name, rest = rest[0], append(rest[1:], "-h")
		}
	}
	if name == "help" || name == "-h" || name == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if name == "--version" || name == "version" {
		fmt.Fprintln(stdout, versionLine(debug.ReadBuildInfo()))
		return 0
	}
	cmd, ok := cmds[name]
	if !ok {
		names := slices.Collect(maps.Keys(cmds))
		if near := suggest.Nearest(name, names); near != "" {
			fmt.Fprintf(stderr, "bench: unknown command %q: did you mean %s? (run 'bench help')\n", name, near)
		} else {
			fmt.Fprintf(stderr, "bench: unknown command %q; run 'bench help'\n", name)
		}
		return exitUsage
	}
	err := cmd(ctx, rest, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	// A server's or program's words may quote a key: none reaches a log.
	fmt.Fprintf(stderr, "bench %s: %s\n", name, secrets.Process.Redact(err.Error()))
	var ue usageError
	var ce bench.ConfigError
	if errors.As(err, &ue) || errors.As(err, &ce) {
		return exitUsage
	}
	return 1
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses flags and rejects stray arguments.
func parse(fs *flag.FlagSet, args []string) error {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
	}
	return nil
}

// parseArgs is every subcommand's one parser: flags before, between and
// after the positional arguments, which it returns in order; after "--"
// everything is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseRunIDArgs parses flags anywhere and one or more run ids.
func parseRunIDArgs(fs *flag.FlagSet, args []string, usage string) ([]int64, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, a := range pos {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, usageError{fmt.Errorf("run %q: want a run id (see bench list --db)", a)}
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, usageError{errors.New(usage)}
	}
	return ids, nil
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
