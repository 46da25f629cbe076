package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// backendOpts are the flags saying where requests go and how they are
// sent, kept, paid and stored: registered once by backendFlags for run,
// estimate and proxy, so that a flag added here reaches all three.
type backendOpts struct {
	apiKey    *string
	endpoints stringList
	sim       *sim.Params
	db        *string
	loadBud   func() error
	loadModel func() error
}

// backendFlags registers the backend group on fs over cfg.
func backendFlags(fs *flag.FlagSet, cfg *bench.Config) *backendOpts {
	o := &backendOpts{}
	fs.StringVar(&cfg.Model, "model", cfg.Model, "model name; 'sim' is the built-in simulated model")
	fs.StringVar(&cfg.BaseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; several, comma-separated: replicas (default $OPENAI_BASE_URL)")
	o.apiKey = fs.String("api-key", "", "API key (default $OPENAI_API_KEY; never stored"+keysNote+")")
	fs.Var(&o.endpoints, "endpoint", "a named endpoint NAME=URL[,KEY_ENV] (repeatable), its key from $KEY_ENV; a role's model on it is MODEL@NAME (debate: --set models=gpt-4o@openai,qwen@local)")
	o.loadBud = budgetFlags(fs, cfg)
	o.loadModel = modelFlags(fs, cfg)
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "seed sent with every request")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "per-request timeout")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts per request on 429, 5xx, timeouts (exponential backoff with jitter)")
	fs.Int64Var(&cfg.MaxResponseBytes, "max-response-bytes", 0, "largest response body read from an endpoint; a larger one fails its call (0: 64 MiB)")
	fs.StringVar(&cfg.Cache, "cache", cfg.Cache, "response cache: readwrite, read or off (a rerun of a finished run then makes no model calls)")
	fs.StringVar(&cfg.Experiment, "experiment", "", "group the run(s) under this experiment id (default with --repeats: repeats-<time>)")
	o.sim = simFlags(fs)
	o.db = dbFlag(fs)
	return o
}

// load reads the backend group into cfg after parsing.
func (o *backendOpts) load(cfg *bench.Config) error {
	if err := o.loadBud(); err != nil {
		return err
	}
	if err := o.loadModel(); err != nil {
		return err
	}
	cfg.Sim = *o.sim
	cfg.APIKey = *o.apiKey
	if cfg.APIKey == "" {
		cfg.APIKey = os.Getenv("OPENAI_API_KEY")
	}
	for _, e := range o.endpoints {
		ep, err := bench.ParseEndpoint(e)
		if err != nil {
			return err
		}
		for _, prev := range cfg.NamedEndpoints {
			if prev.Name == ep.Name {
				return fmt.Errorf("--endpoint %s is given twice: name each endpoint once", ep.Name)
			}
		}
		cfg.NamedEndpoints = append(cfg.NamedEndpoints, ep)
	}
	cfg.NamedKeys = bench.EndpointKeys(cfg.NamedEndpoints, os.Getenv)
	return nil
}

// planOpts are the flags saying what a run runs and how it is scored:
// registered once by planFlags for run and estimate (proxy runs no task).
type planOpts struct {
	preset      *string
	sets        stringList
	file        *string
	repeats     *int
	asJSON      *bool
	shard       func() (*shardSel, error)
	verifierKey func() string
	judgeKey    func() string
	loadTools   func() error
	loadData    func() error
}

// planFlags registers the plan group on fs over cfg.
func planFlags(fs *flag.FlagSet, cfg *bench.Config) *planOpts {
	o := &planOpts{}
	fs.StringVar(&cfg.Task, "task", "", "task to run (see bench list)")
	fs.StringVar(&cfg.Strategy, "strategy", "", "strategy to run (see bench list)")
	o.preset = fs.String("preset", "", "a paper configuration, e.g. tot-game24/tot-b5 (see bench list); --set overrides its parameters")
	fs.StringVar(&cfg.Range, "range", "", "instances by row index START:END (default all), e.g. 900:1000")
	fs.Var(&o.sets, "set", "strategy parameter NAME=VALUE (repeatable)")
	fs.StringVar(&cfg.JudgeModel, "judge-model", "", "model scoring a judged task's outputs (creative: coherency); default the run's model")
	fs.StringVar(&cfg.JudgeBaseURL, "judge-base-url", "", "endpoint of the judge model; default the run's endpoint")
	fs.StringVar(&cfg.UserModel, "user-model", "", "model of the simulated user on tasks with episodes (tau-*): MODEL on the run's endpoint or MODEL@NAME on --endpoint NAME; default the run's model")
	verifierFlags(fs, cfg)
	o.verifierKey = verifierKeyFlag(fs)
	o.judgeKey = judgeKeyFlag(fs)
	o.loadTools = toolFlags(fs, cfg)
	fs.StringVar(&cfg.PromptDir, "prompts", "", "folder of prompt templates (task/name.txt) overriding the bundled ones")
	fs.StringVar(&cfg.Rule, "rule", "", "scoring rule (default the task's; game24: strict|paper); recorded with the run")
	o.loadData = dataFlags(fs, cfg)
	o.asJSON = fs.Bool("json", false, "print the result as JSON on stdout")
	o.file = fs.String("f", "", "experiment file (YAML): task, seeds, repeats and a list of strategy configurations, lists expanded as a cross product")
	o.repeats = fs.Int("repeats", 0, "run each configuration R times with seeds seed..seed+R-1 and report mean and 95% interval")
	o.shard = shardFlag(fs)
	return o
}

// load reads the plan group into cfg after parsing.
func (o *planOpts) load(cfg *bench.Config) error {
	if err := o.loadTools(); err != nil {
		return err
	}
	if err := o.loadData(); err != nil {
		return err
	}
	cfg.VerifierAPIKey = o.verifierKey()
	cfg.JudgeAPIKey = o.judgeKey()
	if *o.repeats < 0 {
		return fmt.Errorf("--repeats %d: must be at least 1", *o.repeats)
	}
	return nil
}
