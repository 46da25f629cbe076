package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
)

// checkModelNamed refuses --base-url without --model, naming the models
// the endpoint lists (GET /models), unless it serves the simulator's
// name "sim" (bench serve-sim): a real server answers "sim" with a 404.
func checkModelNamed(ctx context.Context, fs *flag.FlagSet, cfg bench.Config) error {
	if cfg.BaseURL == "" || cfg.Model != bench.SimModel || flagGiven(fs, "model") {
		return nil
	}
	base := strings.TrimSpace(strings.Split(cfg.BaseURL, ",")[0])
	s, err := bench.ProbeModels(ctx, base, cfg.APIKey)
	switch {
	case err != nil:
		return usageError{fmt.Errorf("--base-url %s without --model: pass --model NAME, the endpoint's model (its GET /models did not answer: %v)", bench.PublicEndpoint(base), err)}
	case s.Serves(bench.SimModel):
		return nil
	case len(s.Names) == 0:
		return usageError{fmt.Errorf("--base-url %s without --model: pass --model NAME (the endpoint lists no models)", bench.PublicEndpoint(base))}
	}
	return usageError{fmt.Errorf("--base-url %s without --model: pass --model NAME; it serves %s", bench.PublicEndpoint(base), strings.Join(s.Names, ", "))}
}

// flagGiven reports whether the command line set the flag.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
