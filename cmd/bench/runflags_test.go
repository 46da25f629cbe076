package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"regexp"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
)

// flagNames lists the flags a subcommand accepts, from its own --help
// (the flag set the command really builds).
func flagNames(t *testing.T, cmd func(context.Context, []string, io.Writer, io.Writer) error) map[string]bool {
	t.Helper()
	var stderr bytes.Buffer
	cmd(t.Context(), []string{"-h"}, io.Discard, &stderr)
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([A-Za-z0-9-]+)`).FindAllStringSubmatch(stderr.String(), -1) {
		names[m[1]] = true
	}
	if len(names) < 5 {
		t.Fatalf("too few flags read from --help: %v\n%s", names, stderr.String())
	}
	return names
}

// Every flag of bench run is accepted by bench estimate (a run command line
// is estimated as it is), and by bench proxy unless it says what to run
// (the plan group, which proxy has no use for). A flag added to run alone
// fails here.
func TestRunFlagsReachEstimateAndProxy(t *testing.T) {
	t.Parallel()
	run, est, proxy := flagNames(t, cmdRun), flagNames(t, cmdEstimate), flagNames(t, cmdProxy)
	plan := flag.NewFlagSet("plan", flag.ContinueOnError)
	cfg := bench.DefaultConfig()
	planFlags(plan, &cfg)
	runOnly := map[string]bool{"continue": true, "force": true} // continuing a stored run; neither estimates nor proxies one
	for name := range run {
		if runOnly[name] {
			continue
		}
		if !est[name] {
			t.Errorf("bench estimate lacks run's --%s", name)
		}
		if !proxy[name] && plan.Lookup(name) == nil {
			t.Errorf("bench proxy lacks run's --%s", name)
		}
	}
	for _, name := range []string{"rule", "judge-model", "judge-base-url", "verifier-model", "verifier-base-url", "endpoint", "mcp"} {
		if !run[name] {
			t.Errorf("bench run lacks --%s", name)
		}
	}
}

// estimate reads the flags it took over from run: --rule and the judge
// reach the dry run's configuration (a bad rule is refused as run refuses it).
func TestEstimateTakesRunFlags(t *testing.T) {
	t.Parallel()
	base := []string{"estimate", "--task", "game24", "--strategy", "io", "--range", "900:901", "--skills", "0.5"}
	if code, _, stderr := cli(t, append(base, "--rule", "paper")...); code != 0 {
		t.Fatalf("estimate --rule paper: %s", stderr)
	}
	if code, _, _ := cli(t, append(base, "--rule", "nonsense")...); code == 0 {
		t.Error("estimate --rule nonsense was accepted")
	}
	if code, _, _ := cli(t, append(base, "--judge-model", "gpt-4o")...); code == 0 {
		t.Error("estimate --judge-model on a task without a judge was accepted (run refuses it)")
	}
}
