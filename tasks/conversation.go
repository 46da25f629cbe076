package tasks

import (
	"context"
	"encoding/json"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
)

// RespondAction is the action that says something to the user of an
// episode: its arguments are {"content": TEXT}, its observation the user's
// reply.
const RespondAction = "respond"

// Environment is implemented by tasks whose items are episodes (τ-bench's
// domains): an agent follows a policy, talks with a simulated user over
// many turns and calls the environment's tools, which read and change its
// state (a database); the episode's outcome, not a final answer, is
// scored. Every trial of an item is an episode of its own, on its own copy
// of the state.
type Environment interface {
	// Episode starts trial of inst, with user as the simulated user's model.
	Episode(ctx context.Context, inst Instance, trial int, user User) (Episode, error)
	// UserStrategies lists the simulated user's strategies, the default
	// first (τ-bench: llm, react, verify, reflection).
	UserStrategies() []string
}

// User is what an episode's simulated user runs on: the run's user role
// (--user-model; the run's own model by default), recorded, cached, metered
// and costed apart from the agent's calls.
type User struct {
	Sampler  llm.Sampler
	Prompts  *prompts.Library
	Strategy string // one of the task's UserStrategies
	// Setup says whether the user's model is asked what the reference asks
	// before the task starts (its constructor's first call, answered and
	// discarded): reference presets pay for it, to send every request the
	// reference sends.
	Setup bool
}

// EnvTool is a tool of an environment as the reference offers it to the
// model: Spec is its whole function description ({"type": "function",
// "function": {...}}), byte for byte, sent as the request's tool.
type EnvTool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // the arguments' JSON schema
	Spec        json.RawMessage
}

// Episode is one trial of an environment's item. It is used by one agent
// at a time.
type Episode interface {
	// Policy is the agent's instructions (τ-bench: the domain's wiki, the
	// tool-calling agent's system prompt).
	Policy() string
	// Tools are the environment's tools, in the order offered.
	Tools() []EnvTool
	// ToolsJSON is the tools as the reference's text agents show them:
	// json.dumps of the list of specs.
	ToolsJSON() string
	// Start is the user's first message.
	Start(ctx context.Context) (string, error)
	// Act carries out one action of the agent: a tool call by name with
	// its arguments as the model wrote them, or RespondAction. It returns
	// the observation (the tool's result, its error as the reference words
	// it, "Unknown action NAME", or the user's reply) and whether the
	// episode is over (the user stopped, a tool ended it). An error is
	// EpisodeFailed where the reference fails the episode, else a failure
	// of the user's model or a cancelled context, not of the agent's action.
	Act(ctx context.Context, name string, args json.RawMessage) (observation string, done bool, err error)
	// Outcome scores the episode as it stands (at its end, or at the
	// agent's step limit).
	Outcome() events.Outcome
}

// EpisodeFailed ends an episode where the reference fails it (its agent or
// user simulator raises: arguments that are not a JSON object, a user reply
// it cannot parse): the trial is recorded with the reason and reward 0, and
// the run goes on.
type EpisodeFailed struct{ Err error }

func (e EpisodeFailed) Error() string { return e.Err.Error() }
func (e EpisodeFailed) Unwrap() error { return e.Err }

// FewShotter is implemented by environments with example dialogues
// (τ-bench's few-shot agent): FewShot is the system turn's addition for
// trial of inst, n examples drawn as the reference draws them with seed.
type FewShotter interface {
	FewShot(inst Instance, trial, n int, seed int64) (string, error)
}
