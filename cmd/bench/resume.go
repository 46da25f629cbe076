package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
)

func cmdResume(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("resume", stderr)
	last := fs.Bool("last", false, "resume the most recent unfinished run")
	force := fs.Bool("force", false, "take over the run from another process that holds it, when you know that process is gone "+
		"(without --force a run is taken over once its holder's heartbeat is 30 s old, or at once when the holder was a process of this machine that ended)")
	apiKey := fs.String("api-key", "", "API key (default $OPENAI_API_KEY; never stored"+keysNote+")")
	baseURL := fs.String("base-url", "", "where the run's model is served now, e.g. another replica (default $OPENAI_BASE_URL if set, else the recorded endpoint)")
	var endpoints stringList
	fs.Var(&endpoints, "endpoint", "re-point a named endpoint of the run NAME=URL[,KEY_ENV] (repeatable), its key from $KEY_ENV")
	verifierKey := verifierKeyFlag(fs)
	judgeKey := judgeKeyFlag(fs)
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the summary as one JSON object on stdout")
	var maxCost maxCostFlag
	fs.Var(&maxCost, "max-cost", "new cost ceiling in US dollars for the whole run (0: none; default: the run's recorded one)")
	loadPrices := pricesFlag(fs)
	loadServers := serverFlags(fs, "an MCP server of the run given again, NAME=COMMAND or NAME=http://HOST/PATH (repeatable): a run whose server was given credentials in its url, arguments, headers or variables stored them nowhere, and needs them (docs/tools.md)")
	runArg, err := parseWithRun(fs, args)
	if err != nil {
		return err
	}
	servers, err := loadServers()
	if err != nil {
		return usageError{err}
	}
	prices, err := loadPrices()
	if err != nil {
		return usageError{err}
	}
	if (runArg == "") == !*last {
		return usageError{errors.New("usage: bench resume RUN | bench resume --last")}
	}
	st, err := openExisting(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	var runID int64
	if *last {
		r, err := st.LastUnfinished(ctx)
		if err != nil {
			return usageError{err}
		}
		runID = r.ID
	} else if runID, err = strconv.ParseInt(runArg, 10, 64); err != nil {
		return usageError{fmt.Errorf("run %q: want a run id (see bench report)", runArg)}
	}
	key := *apiKey
	if key == "" {
		key = os.Getenv("OPENAI_API_KEY")
	}
	opts := bench.ResumeOptions{APIKey: key, VerifierAPIKey: verifierKey(), JudgeAPIKey: judgeKey(),
		BaseURL: *baseURL, EnvBaseURL: os.Getenv("OPENAI_BASE_URL"), MaxCost: maxCost.v, Prices: prices, MCP: servers}
	for _, e := range endpoints {
		ep, err := bench.ParseEndpoint(e)
		if err != nil {
			return usageError{err}
		}
		opts.Endpoints = append(opts.Endpoints, ep)
	}
	opts.NamedKeys = bench.EndpointKeys(opts.Endpoints, os.Getenv)
	bar := newProgressBar(stderr)
	eng := &bench.Engine{Store: st, OnProgress: bar.update, Force: *force}
	endpoint := *baseURL
	if r, err := st.GetRun(ctx, runID); err == nil && endpoint == "" {
		endpoint = r.Endpoint // without credentials
	}
	bar.start(endpoint)
	sum, err := eng.ResumeWith(ctx, runID, opts)
	bar.finish()
	warnToolFailures(stderr, sum)
	if err != nil {
		return stopped(sum, *db, err)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(sum)
	}
	return render.Write(stdout, "md", []render.Row{rowOf(sum)})
}
