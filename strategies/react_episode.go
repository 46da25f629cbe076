package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/strategies/action"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// Episodes (tasks.Environment, τ-bench's domains): the agent talks with a
// simulated user and acts on the environment's tools until the user stops,
// a tool ends the episode or max_steps model turns have passed; the
// episode's reward is its score. Each item plays `trials` episodes, each
// its own draws (call identities t<trial>/...), and records pass^k of its
// trials (PassHat). The protocols make τ-bench's agents' decisions:
//
//   - tools: the tool-calling agent. The policy is the system turn, the
//     user's first message the first user turn; each model turn is sent
//     the environment's tools; the first tool call of a turn is acted on
//     and only it is kept in the history, answered by a tool turn; a turn
//     without a tool call is said to the user, whose reply comes back as a
//     user turn. With fewshot=N the system turn also shows N example
//     dialogues, drawn as τ-bench's run.py draws them (fewshot.go).
//   - act, react: τ-bench's text agents. One system turn (template
//     react_act or react_react of the task's folder: the policy, the tools
//     as JSON, the instruction); the text after the reply's last "Action:" is read as
//     JSON {"name", "arguments"}, and anything that is not JSON is said to
//     the user as it stands; a tool's observation comes back as a user
//     turn "API output: ..."; the whole reply stays in the history.
//   - xml: as act, the action written as XML tags:
//     <tool_name><param>value</param></tool_name> (action.ParseXML).
//
// Where τ-bench's agents raise an exception (arguments that are not JSON,
// a text action without "name" or "arguments"), the episode ends there
// with reward 0 and the error recorded, as run.py records it.

// Episode parameters' values.
const (
	ProtocolAct   = "act"
	ProtocolReAct = "react"
	ProtocolXML   = "xml"
)

// PassHat is pass^k of a task with c successes of n trials (stats.PassHat,
// as the τ-bench paper defines it); 0 outside 1 <= k <= n.
func PassHat(c, n, k int) float64 {
	if k < 1 || k > n || c < 0 || c > n {
		return 0
	}
	return stats.PassHat(n, c, k)
}

// successful is run.py's test of a trial's reward.
func successful(r float64) bool { return r >= 1-1e-6 && r <= 1+1e-6 }

func (s *react) solveEpisodes(ctx context.Context, env Env, envTask tasks.Environment, inst tasks.Instance) (Result, error) {
	d := reading.ReActEpisodes{Protocol: s.protocol, MaxSteps: s.maxSteps, User: s.user, Trials: []reading.EpisodeTrial{}}
	user := tasks.User{Sampler: env.User, Prompts: env.Prompts, Strategy: s.user, Setup: s.userSetup}
	if user.Sampler == nil {
		return Result{}, errors.New("react: the run has no user model for the episode's simulated user")
	}
	for trial := range s.trials {
		ep, err := envTask.Episode(ctx, inst, trial, user)
		if err != nil {
			return Result{}, err
		}
		tr, err := s.episode(ctx, env, ep, inst, trial)
		if err != nil {
			return Result{}, err
		}
		d.Trials = append(d.Trials, tr)
	}
	res := episodesResult(&d)
	res.Detail = d
	return res, nil
}

// episodeAgent is one episode in progress.
type episodeAgent struct {
	s     *react
	env   Env
	ep    tasks.Episode
	trial int
	msgs  []llm.Message
	specs []llm.ToolSpec
	tr    reading.EpisodeTrial
}

func (s *react) episode(ctx context.Context, env Env, ep tasks.Episode, inst tasks.Instance, trial int) (reading.EpisodeTrial, error) {
	a := &episodeAgent{s: s, env: env, ep: ep, trial: trial, tr: reading.EpisodeTrial{Trial: trial, Turns: []reading.EpisodeTurn{}}}
	start := events.WithStep(ctx, fmt.Sprintf("t%d/s0", trial)) // the user's first message is step 0
	first, err := ep.Start(start)
	var envFailed tasks.EpisodeFailed
	if errors.As(err, &envFailed) {
		a.tr.Error = err.Error()
		a.tr.Outcome = ep.Outcome()
		return a.tr, nil
	}
	if err != nil {
		return reading.EpisodeTrial{}, fmt.Errorf("trial %d: the user's first message: %w", trial, err)
	}
	a.tr.Turns = append(a.tr.Turns, reading.EpisodeTurn{Role: "user", Content: first})
	env.record(start, events.Event{Kind: events.User, Text: first})
	system, err := a.systemPrompt(inst)
	if err != nil {
		return reading.EpisodeTrial{}, err
	}
	a.msgs = []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: first}}
	for _, t := range ep.Tools() {
		a.specs = append(a.specs, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	done := false
	for step := 1; step <= s.maxSteps && !done; step++ {
		a.tr.Steps = step
		done, err = a.turn(ctx, step)
		if err != nil {
			var failed episodeError
			var envFailed tasks.EpisodeFailed
			if errors.As(err, &failed) || errors.As(err, &envFailed) {
				a.tr.Error = err.Error()
				break
			}
			return reading.EpisodeTrial{}, err
		}
	}
	a.tr.HitLimit = !done && a.tr.Error == ""
	a.tr.Outcome = ep.Outcome()
	a.tr.Reward = a.tr.Outcome.Reward
	if a.tr.Error != "" || !done {
		// τ-bench's reward is what the last step returned: 0 unless the
		// episode ended.
		a.tr.Reward = 0
	}
	return a.tr, nil
}

// episodeError ends an episode where τ-bench's agent raises an exception.
type episodeError struct{ error }

// systemPrompt is the agent's system turn: template react_<protocol> of
// the task's folder (for tools the policy, and the examples with fewshot).
func (a *episodeAgent) systemPrompt(inst tasks.Instance) (string, error) {
	data := episodePromptData{Policy: a.ep.Policy(), ToolsJSON: a.ep.ToolsJSON(), LastAttempt: a.s.lastAttempt, Reflections: a.s.reflections}
	if a.s.fewShot > 0 {
		shots, ok := a.env.Task.(tasks.FewShotter)
		if !ok {
			return "", fmt.Errorf("react fewshot=%d: task %s has no example dialogues", a.s.fewShot, a.env.Task.Name())
		}
		ex, err := shots.FewShot(inst, a.trial, a.s.fewShot, a.s.fewShotSeed)
		if err != nil {
			return "", err
		}
		data.Examples = ex
	}
	name := "react_" + a.s.protocol
	if a.s.template != "" { // Reflexion's actor: the same with its memory
		name = a.s.template
	}
	return render(a.env, name, data)
}

// episodePromptData is what the react_<protocol> templates of an
// environment's folder see.
type episodePromptData struct {
	Policy    string // the domain's policy
	ToolsJSON string // json.dumps of the tools' specs, as τ-bench's text agents show them
	Examples  string // fewshot: the example dialogues, "Example 1:\n..." joined by blank lines
	// Reflexion's actor (templates reflexion_react_<protocol>): the last
	// trial's conversation and the reflections shown, oldest first.
	LastAttempt string
	Reflections []string
}

// episodeTranscript is a trial's conversation as text, for Reflexion's
// reflection on it: one line a turn.
func episodeTranscript(tr reading.EpisodeTrial) string {
	var b strings.Builder
	for _, t := range tr.Turns {
		switch t.Role {
		case "tool":
			fmt.Fprintf(&b, "Agent called %s %s: %s\n", t.Tool, clip(string(t.Arguments), maxCallText), clip(t.Result, maxObservation/4))
		case "agent":
			fmt.Fprintf(&b, "Agent: %s\n", t.Content)
		default:
			fmt.Fprintf(&b, "User: %s\n", t.Content)
		}
	}
	if tr.HitLimit {
		b.WriteString("(the agent's steps ran out)\n")
	}
	if tr.Error != "" {
		fmt.Fprintf(&b, "(the episode failed: %s)\n", tr.Error)
	}
	return strings.TrimSpace(b.String())
}

// turn asks the agent for one step and carries out its action.
func (a *episodeAgent) turn(ctx context.Context, step int) (bool, error) {
	ctx = events.WithStep(ctx, fmt.Sprintf("t%d/s%d", a.trial, step)) // a turn's calls run one after another
	req := llm.Request{Messages: a.msgs, Temperature: a.s.temperature, MaxTokens: a.s.maxTokens,
		Purpose: "agent", Call: fmt.Sprintf("t%d/s%d/agent", a.trial, step)}
	if a.s.protocol == ProtocolTools {
		req.Tools = a.specs
	}
	resp, err := a.env.Sampler.Sample(ctx, req)
	if err != nil {
		return false, err
	}
	if len(resp.Choices) == 0 {
		return false, errNoChoices("react")
	}
	ch := resp.Choices[0]
	if a.s.protocol == ProtocolTools {
		return a.toolTurn(ctx, ch, step)
	}
	return a.textTurn(ctx, ch, step)
}

// toolTurn is the tool-calling agent's step.
func (a *episodeAgent) toolTurn(ctx context.Context, ch llm.Choice, step int) (bool, error) {
	msg := ch.Message()
	if len(ch.ToolCalls) == 0 {
		a.msgs = append(a.msgs, msg)
		return a.respond(ctx, ch.Content, "", step)
	}
	c := ch.ToolCalls[0]
	msg.ToolCalls = msg.ToolCalls[:1] // only the first call is acted on and kept
	a.msgs = append(a.msgs, msg)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(c.Arguments), &obj); err != nil || obj == nil {
		// τ-bench's json.loads (or its Action's dict) raises here.
		return false, episodeError{fmt.Errorf("the arguments of %s are not a JSON object: %s", clip(c.Name, 80), clip(c.Arguments, 200))}
	}
	obs, done, err := a.act(ctx, c.Name, json.RawMessage(c.Arguments), ch.Content, step)
	if err != nil {
		return false, err
	}
	a.msgs = append(a.msgs, llm.Message{Role: "tool", ToolCallID: c.ID, Name: c.Name, Content: obs})
	return done, nil
}

// textTurn is the act, react and xml agents' step.
func (a *episodeAgent) textTurn(ctx context.Context, ch llm.Choice, step int) (bool, error) {
	a.msgs = append(a.msgs, llm.Message{Role: "assistant", Content: ch.Content})
	var name string
	var args json.RawMessage
	var thought string
	if a.s.protocol == ProtocolXML {
		act, err := action.ParseXML(ch.Content, a.schema)
		if err != nil {
			// As τ-bench's text agents do with what is not JSON: the reply
			// is said to the user.
			name, args = tasks.RespondAction, respondArgs(strings.TrimSpace(ch.Content))
		} else {
			name, args, thought = act.Name, act.Args, act.Thought
		}
	} else {
		act, err := action.ParseEpisode(ch.Content)
		if err != nil {
			return false, episodeError{err} // the reference's assertion fails: the episode ends
		}
		name, args, thought = act.Name, act.Args, act.Thought
		if act.Args == nil { // not JSON: said to the user as it stands
			name, args = tasks.RespondAction, respondArgs(act.Input)
		}
	}
	obs, done, err := a.act(ctx, name, args, thought, step)
	if err != nil {
		return false, err
	}
	if name != tasks.RespondAction {
		obs = "API output: " + obs
	}
	a.msgs = append(a.msgs, llm.Message{Role: "user", Content: obs})
	return done, nil
}

// act runs a tool call (or a respond) on the episode and records it.
func (a *episodeAgent) act(ctx context.Context, name string, args json.RawMessage, thought string, step int) (string, bool, error) {
	if name == tasks.RespondAction {
		var r struct {
			Content string `json:"content"`
		}
		json.Unmarshal(args, &r)
		return a.sayTo(ctx, r.Content, args, thought, step)
	}
	obs, done, err := a.ep.Act(ctx, name, args)
	if err != nil {
		return "", false, err
	}
	failed := strings.HasPrefix(obs, "Error") || strings.HasPrefix(obs, "Unknown action ")
	a.tr.ToolCalls++
	if failed {
		a.tr.ToolErrors++
	}
	a.tr.Turns = append(a.tr.Turns, reading.EpisodeTurn{Role: "tool", Tool: name, Arguments: args, Result: obs, Error: failed, Thought: thought, Step: step})
	return obs, done, nil
}

// respond says content to the user; the reply is the next user turn.
func (a *episodeAgent) respond(ctx context.Context, content, thought string, step int) (bool, error) {
	obs, done, err := a.sayTo(ctx, content, respondArgs(content), thought, step)
	if err != nil {
		return false, err
	}
	a.msgs = append(a.msgs, llm.Message{Role: "user", Content: obs})
	return done, nil
}

func (a *episodeAgent) sayTo(ctx context.Context, content string, args json.RawMessage, thought string, step int) (string, bool, error) {
	obs, done, err := a.ep.Act(ctx, tasks.RespondAction, args)
	if err != nil {
		return "", false, err
	}
	a.tr.Turns = append(a.tr.Turns, reading.EpisodeTurn{Role: "agent", Content: content, Thought: thought, Step: step},
		reading.EpisodeTurn{Role: "user", Content: obs, Step: step})
	a.env.record(ctx, events.Event{Kind: events.User, Text: obs})
	return obs, done, nil
}

func respondArgs(content string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"content": content})
	return b
}

// checkEpisodes refuses a configuration τ-bench's episodes cannot run.
func (s *react) checkEpisodes(t tasks.Task, e tasks.Environment) error {
	switch s.protocol {
	case ProtocolTools, ProtocolAct, ProtocolReAct, ProtocolXML:
	default:
		return fmt.Errorf("protocol=%s: task %s's episodes take tools (τ-bench's tool-calling agent), act, react or xml", s.protocol, t.Name())
	}
	if !slices.Contains(e.UserStrategies(), s.user) {
		return fmt.Errorf("user=%s: task %s's simulated user is one of %s", s.user, t.Name(), strings.Join(e.UserStrategies(), ", "))
	}
	if s.tools != ToolsTask && s.tools != "" {
		return fmt.Errorf("tools=%s: an episode acts with its environment's tools only", s.tools)
	}
	if s.fewShot > 0 {
		if s.protocol != ProtocolTools {
			return fmt.Errorf("fewshot: τ-bench's few-shot agent calls tools natively; use protocol=tools")
		}
		if _, ok := t.(tasks.FewShotter); !ok {
			return fmt.Errorf("fewshot: task %s has no example dialogues", t.Name())
		}
	}
	return nil
}

// schema is a tool's arguments schema, nil for a tool the episode lacks.
func (a *episodeAgent) schema(name string) json.RawMessage {
	for _, t := range a.specs {
		if t.Name == name {
			return t.Parameters
		}
	}
	return nil
}

// EpisodePlayer is implemented by strategies that play a task's episodes
// (tasks.Environment): react, and reflexion with a react actor. The engine
// refuses others on such a task before the run.
type EpisodePlayer interface {
	PlaysEpisodes() bool
}

// PlaysEpisodes: react plays episodes in its protocols.
func (s *react) PlaysEpisodes() bool { return true }

// PlaysEpisodes: reflexion's react actor plays one episode a trial.
func (s *reflexion) PlaysEpisodes() bool { return s.actor == ActorReAct }
