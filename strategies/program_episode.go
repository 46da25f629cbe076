package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/endpoint"
	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// A program on a task of episodes (tasks.Environment, τ-bench's domains):
// for each trial bench starts the program once, with the item's OpenAI
// endpoint and, on the same listener and token, the trial's episode shaped
// like τ-bench's Env (endpoint.EnvServer): POST $REASONBENCH_ENV_URL/env/reset
// gives the user's first message, the policy and the tools; POST
// .../env/step carries out a tool call or a message to the user, as the
// reference's Env.step does. The trial's reward is the episode's as the
// reference's agent loop leaves it: its reward when it ended (the user's
// ###STOP###, transfer_to_human_agents), 0 when the program stopped before
// (exited, failed, ran out of steps). The item is recorded as react's
// episodes are (reading.ReActEpisodes), with each trial's program run.

// Program episode parameters (passed to the program too, in params).
const (
	programTrialsParam   = "trials"
	programMaxStepsParam = "max_steps"
	programUserParam     = "user"
	programSetupParam    = "user_setup"
	// programMaxSteps is τ-bench's run.py default, max_num_steps=30.
	programMaxSteps = 30
)

// ProtocolProgram is the protocol recorded for a program's episodes.
const ProtocolProgram = "program"

// EnvURLVar names the environment variable that gives a program its
// episode's base URL (POST $REASONBENCH_ENV_URL/env/reset, /env/step).
const EnvURLVar = "REASONBENCH_ENV_URL"

// PlaysEpisodes: a program plays a task's episodes through the environment
// endpoint.
func (s *program) PlaysEpisodes() bool { return true }

// programEpisodeConfig is what an item's episodes run with.
type programEpisodeConfig struct {
	trials, maxSteps int
	user             string
	setup            bool
}

// episodeConfig reads the episode parameters from the program's params.
func (s *program) episodeConfig(e tasks.Environment) (programEpisodeConfig, error) {
	c := programEpisodeConfig{trials: 1, maxSteps: programMaxSteps}
	var err error
	if c.trials, err = intParam(s.params, programTrialsParam, 1, 1, 100); err != nil {
		return c, err
	}
	if c.maxSteps, err = intParam(s.params, programMaxStepsParam, programMaxSteps, 1, 1000); err != nil {
		return c, err
	}
	strategies := e.UserStrategies()
	c.user = strategies[0]
	if v, ok := s.params[programUserParam]; ok {
		u, isStr := v.(string)
		if !isStr || !slices.Contains(strategies, u) {
			return c, fmt.Errorf("parameter user=%v: the simulated user is one of %s", v, strings.Join(strategies, ", "))
		}
		c.user = u
	}
	switch v := s.params[programSetupParam].(type) {
	case nil:
	case bool:
		c.setup = v
	default:
		return c, fmt.Errorf("parameter user_setup=%v: want true or false", v)
	}
	return c, nil
}

// intParam is a whole-number parameter in [lo, hi] (params hold JSON
// numbers as float64), def when absent.
func intParam(params map[string]any, name string, def, lo, hi int) (int, error) {
	v, ok := params[name]
	if !ok {
		return def, nil
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, fmt.Errorf("parameter %s=%v: want a whole number from %d to %d", name, v, lo, hi)
	}
	return int(f), nil
}

// ProgramEpisodes is what a program item on an environment stores: the
// episodes as react records them, and each trial's program run.
type ProgramEpisodes struct {
	reading.ReActEpisodes
	// Runs[i] is trial i's program: its exit, its failure, the requests
	// its endpoint refused, its stderr tail.
	Runs []ProgramDetail `json:"runs"`
}

// programEpisodeItem is the JSON line a program reads on an environment:
// never the user's instruction (the simulated user's, not the agent's) nor
// the gold actions.
type programEpisodeItem struct {
	ProgramItem
	Trial  int    `json:"trial"`
	EnvURL string `json:"env_url"`
}

func (s *program) solveEpisodes(ctx context.Context, env Env, e tasks.Environment, inst tasks.Instance) (Result, error) {
	c, err := s.episodeConfig(e)
	if err != nil {
		return Result{}, err
	}
	if env.User == nil {
		return Result{}, errors.New("program: the run has no user model for the episode's simulated user")
	}
	user := tasks.User{Sampler: env.User, Prompts: env.Prompts, Strategy: c.user, Setup: c.setup}
	d := ProgramEpisodes{ReActEpisodes: reading.ReActEpisodes{Protocol: ProtocolProgram, MaxSteps: c.maxSteps, User: c.user,
		Trials: []reading.EpisodeTrial{}}, Runs: []ProgramDetail{}}
	failed := 0
	for trial := range c.trials {
		ep, err := e.Episode(ctx, inst, trial, user)
		if err != nil {
			return Result{}, err
		}
		tr, run, err := s.playTrial(ctx, env, ep, inst, trial, c.maxSteps)
		if err != nil {
			return Result{}, err
		}
		d.Trials = append(d.Trials, tr)
		d.Runs = append(d.Runs, run)
		if run.Failure != "" {
			failed++
		}
	}
	res := episodesResult(&d.ReActEpisodes)
	res.Metrics["failed"] = float64(failed) / float64(c.trials)
	res.Detail = d
	return res, nil
}

// playTrial runs the program once on trial's episode.
func (s *program) playTrial(ctx context.Context, env Env, ep tasks.Episode, inst tasks.Instance, trial, maxSteps int) (reading.EpisodeTrial, ProgramDetail, error) {
	log := &endpoint.Log{}
	prefix := fmt.Sprintf("t%d/agent/", trial)
	// The trial's calls are its own draws: t<trial>/agent/ before the
	// identity the endpoint gives them. "agent/" keeps a program that
	// names a call user/1 (X-Bench-Call) apart from the simulated user's
	// t<trial>/user/1: two roles' calls, never one draw.
	calls := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		req.Call = prefix + req.Call
		return env.Sampler.Sample(ctx, req)
	})
	es := &episodeServer{env: env, ep: ep, index: inst.Index, trial: trial, maxSteps: maxSteps,
		tr: reading.EpisodeTrial{Trial: trial, Turns: []reading.EpisodeTurn{}}}
	h := endpoint.WithEnv(endpoint.ItemServer(calls, "program", log), endpoint.EnvServer(es, log))
	l, err := endpoint.Listen("127.0.0.1:0", s.token, &endpoint.Handler{Token: s.token, Log: log,
		Item: func(int) (http.Handler, error) { return h, nil }})
	if err != nil {
		return reading.EpisodeTrial{}, ProgramDetail{}, err
	}
	envURL := strings.TrimSuffix(l.URL, "/v1")
	item := programEpisodeItem{ProgramItem: ProgramItem{Index: inst.Index, ID: inst.Key, Task: env.Task.Name(), Params: s.params},
		Trial: trial, EnvURL: envURL}
	stdin, err := json.Marshal(item)
	if err != nil {
		_ = l.Close()
		return reading.EpisodeTrial{}, ProgramDetail{}, fmt.Errorf("program: encode item: %w", err)
	}
	model := env.Model
	if model == "" {
		model = ProgramModel
	}
	run, runErr := s.run(ctx, append(stdin, '\n'), l.URL, model, inst.Index, EnvURLVar+"="+envURL)
	_ = l.Close() // requests still in flight (a killed program's) are cancelled
	if ctx.Err() != nil {
		return reading.EpisodeTrial{}, ProgramDetail{}, ctx.Err() // interrupted: the item is redone on resume
	}
	if err := log.Err(); err != nil {
		return reading.EpisodeTrial{}, ProgramDetail{}, err // the stack's (the user's model, the budget): the run's
	}
	if runErr != nil {
		return reading.EpisodeTrial{}, ProgramDetail{}, runErr
	}
	d := run.detail
	d.Requests = log.Requests()
	d.Refused, d.Reasons = log.Refused()
	d.Failure = run.failure()
	if d.Failure != "" && d.Refused > 0 {
		d.Failure += fmt.Sprintf("; the endpoint refused %d request(s), first: %s", d.Refused, d.Reasons[0])
	}
	return es.finish(d.Failure), d, nil
}

// failure is why the program's run failed ("" when it exited with status
// 0): on an environment its standard output is not an answer, so only its
// exit is read.
func (r programRun) failure() string {
	if r.timedOut == 0 && r.exitErr == nil && !r.overflow {
		return ""
	}
	_, f := r.answer()
	return f
}

// episodeServer is one trial's episode as the environment endpoint serves
// it (endpoint.Env), recording the conversation as react's episodes do.
type episodeServer struct {
	env      Env
	ep       tasks.Episode
	index    int
	trial    int
	maxSteps int

	mu      sync.Mutex
	started bool
	done    bool
	over    string // why the episode ended otherwise: a failure, the step limit
	limit   bool
	tr      reading.EpisodeTrial
}

var _ endpoint.Env = (*episodeServer)(nil)

// Reset starts the episode: the user's first message, the policy, the
// tools as the reference gives them to the model.
func (e *episodeServer) Reset(ctx context.Context, taskIndex *int) (endpoint.EnvReset, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if taskIndex != nil && *taskIndex != e.index {
		return endpoint.EnvReset{}, endpoint.EnvRefusal{Status: http.StatusBadRequest,
			Message: fmt.Sprintf("task_index %d: this endpoint serves task %d only (the item's)", *taskIndex, e.index)}
	}
	if e.started {
		return endpoint.EnvReset{}, endpoint.EnvRefusal{Status: http.StatusConflict,
			Message: "the episode was already reset: one program run is one trial's episode"}
	}
	e.started = true
	ctx = events.WithStep(ctx, fmt.Sprintf("t%d/s0", e.trial)) // the user's first message is step 0
	first, err := e.ep.Start(ctx)
	info := e.info("user")
	var failed tasks.EpisodeFailed
	if errors.As(err, &failed) {
		e.over = err.Error()
		info["error"] = e.over
		return endpoint.EnvReset{Observation: "", Info: info}, nil
	}
	if err != nil {
		return endpoint.EnvReset{}, fmt.Errorf("trial %d: the user's first message: %w", e.trial, err)
	}
	e.tr.Turns = append(e.tr.Turns, reading.EpisodeTurn{Role: "user", Content: first})
	e.env.record(ctx, events.Event{Kind: events.User, Text: first})
	tools := make([]json.RawMessage, 0)
	for _, t := range e.ep.Tools() {
		tools = append(tools, t.Spec)
	}
	info["wiki"] = e.ep.Policy()
	info["tools"] = tools
	return endpoint.EnvReset{Observation: first, Info: info}, nil
}

func (e *episodeServer) info(source string) map[string]any {
	return map[string]any{"source": source, "task_index": e.index, "trial": e.trial}
}

// Step is the reference's Env.step: a message to the user is answered by
// the user, a tool by its result, an unknown name by "Unknown action
// NAME"; the reward is the episode's when it ends, else 0. A step before
// the reset, after the end or past max_steps is refused (the last ends the
// episode).
func (e *episodeServer) Step(ctx context.Context, name string, kwargs json.RawMessage) (endpoint.EnvStep, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !e.started:
		return endpoint.EnvStep{}, endpoint.EnvRefusal{Status: http.StatusConflict, Message: "reset the environment first (POST /env/reset)"}
	case e.done || e.over != "":
		return endpoint.EnvStep{}, endpoint.EnvRefusal{Status: http.StatusConflict, Message: "the episode is over"}
	case e.tr.Steps >= e.maxSteps:
		e.limit = true
		e.over = fmt.Sprintf("the step limit was reached (max_steps=%d)", e.maxSteps)
		return endpoint.EnvStep{}, endpoint.EnvRefusal{Status: http.StatusConflict,
			Message: fmt.Sprintf("step %d refused: max_steps=%d; the episode is over with reward 0", e.tr.Steps+1, e.maxSteps)}
	}
	e.tr.Steps++
	step := e.tr.Steps
	ctx = events.WithStep(ctx, fmt.Sprintf("t%d/s%d", e.trial, step))
	obs, done, err := e.ep.Act(ctx, name, kwargs)
	info := e.info(name)
	if name == tasks.RespondAction {
		info["source"] = "user"
	}
	var failed tasks.EpisodeFailed
	if errors.As(err, &failed) {
		// Where the reference's environment raises (a tool that returns
		// no observation, a user reply it cannot parse): the episode ends
		// with reward 0 and the error recorded.
		e.over = err.Error()
		info["error"] = e.over
		return endpoint.EnvStep{Done: true, Info: info}, nil
	}
	if err != nil {
		return endpoint.EnvStep{}, err
	}
	if name == tasks.RespondAction {
		var r struct {
			Content string `json:"content"`
		}
		_ = json.Unmarshal(kwargs, &r) // checked by the endpoint
		e.tr.Turns = append(e.tr.Turns, reading.EpisodeTurn{Role: "agent", Content: r.Content, Step: step},
			reading.EpisodeTurn{Role: "user", Content: obs, Step: step})
		e.env.record(ctx, events.Event{Kind: events.User, Text: obs})
	} else {
		bad := strings.HasPrefix(obs, "Error") || strings.HasPrefix(obs, "Unknown action ")
		e.tr.ToolCalls++
		if bad {
			e.tr.ToolErrors++
		}
		e.tr.Turns = append(e.tr.Turns, reading.EpisodeTurn{Role: "tool", Tool: name, Arguments: kwargs, Result: obs, Error: bad, Step: step})
	}
	out := endpoint.EnvStep{Observation: obs, Done: done, Info: info}
	if done {
		e.done = true
		out.Reward = e.ep.Outcome().Reward
	}
	return out, nil
}

// finish is the trial as the program left it: its outcome, and its reward
// if the episode ended (τ-bench's agent loop returns the last step's
// reward: 0 unless done). failure is the program's, "" if it exited well.
func (e *episodeServer) finish(failure string) reading.EpisodeTrial {
	e.mu.Lock()
	defer e.mu.Unlock()
	tr := e.tr
	tr.Outcome = e.ep.Outcome()
	tr.Reward = tr.Outcome.Reward
	tr.HitLimit = e.limit || (!e.done && e.over == "" && e.started && tr.Steps >= e.maxSteps)
	switch {
	case e.done:
	case e.over != "" && !e.limit:
		tr.Error = e.over
	case !e.started:
		tr.Error = "the program did not reset the environment"
	case !tr.HitLimit:
		tr.Error = "the program ended before the episode did"
	}
	if !e.done {
		tr.Reward = 0
		if failure != "" {
			if tr.Error != "" {
				tr.Error += "; "
			}
			tr.Error += "program: " + failure
		}
	}
	return tr
}
