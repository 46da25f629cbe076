package main

import (
	"flag"
	"fmt"

	"github.com/reasonbench/reasonbench/bench"
)

// Help texts of the file-task flags.
const (
	taskSpecHelp = "file tasks: a YAML spec of the data file (field names, scorer, normalisation, tolerance, steps, prompts folder)"
	scorerHelp   = "file tasks: the scorer, exact[:none|lower|squad], em_f1, numeric[:TOLERANCE], choice, regex[:i] or math[:hendrycks] (see bench list); recorded as the run's scoring rule"
)

// dataFlags adds --task-spec and --scorer to fs; the returned function,
// called after parsing, makes --scorer the config's scoring rule.
func dataFlags(fs *flag.FlagSet, cfg *bench.Config) func() error {
	fs.StringVar(&cfg.TaskSpec, "task-spec", "", taskSpecHelp)
	scorer := fs.String("scorer", "", scorerHelp)
	return func() error { return applyScorer(&cfg.Rule, *scorer) }
}

// applyScorer sets rule from --scorer, which is --rule by another name.
func applyScorer(rule *string, scorer string) error {
	if scorer == "" {
		return nil
	}
	if *rule != "" && *rule != scorer {
		return fmt.Errorf("--scorer %s and --rule %s: give one of them (for file tasks the scorer is the rule)", scorer, *rule)
	}
	*rule = scorer
	return nil
}
