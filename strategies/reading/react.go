package reading

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/events"
)

// ReActAction is one action of a step and what came of it.
type ReActAction struct {
	ID          string `json:"id,omitempty"`   // tool call id (tools protocol)
	Tool        string `json:"tool,omitempty"` // the tool run ("" if none matched)
	Call        string `json:"call"`           // the action as written, e.g. Search[Paris]
	Observation string `json:"observation"`
	Invalid     bool   `json:"invalid,omitempty"` // unreadable, unknown, or refused by the tool
	// External is the record of a call to a tool of the run's (--mcp).
	External *events.ToolCall `json:"tool_call,omitempty"`
}

// ReActStep is one model turn.
type ReActStep struct {
	Step    int           `json:"step"`
	Thought string        `json:"thought,omitempty"`
	Actions []ReActAction `json:"actions,omitempty"`
	Reply   string        `json:"reply,omitempty"` // the reply, when no action could be read from it
}

// ReActTrajectory is what a react item stores as its detail.
type ReActTrajectory struct {
	Protocol string      `json:"protocol"`
	MaxSteps int         `json:"max_steps"`
	Steps    []ReActStep `json:"steps"`
	Finished bool        `json:"finished"`  // the final tool ended the trajectory
	HitLimit bool        `json:"hit_limit"` // the last allowed step was reached
	Invalid  int         `json:"invalid_actions"`
	Output   string      `json:"output"`
}

// viewReAct draws a react item's trajectory, or its episodes.
func viewReAct(detail []byte) ItemView {
	var ep ReActEpisodes
	if json.Unmarshal(detail, &ep) == nil && len(ep.Trials) > 0 {
		c := ep.conversation()
		return ItemView{Conversation: &c}
	}
	var d ReActTrajectory
	if json.Unmarshal(detail, &d) != nil {
		return ItemView{}
	}
	c := Conversation{Threads: []Thread{d.conversation("trajectory")}}
	return ItemView{Trajectory: &d, Conversation: &c}
}

// EpisodeTurn is one message of an episode's conversation, in order.
type EpisodeTurn struct {
	// Role: "user" (the simulated user), "agent" (a message to the user),
	// "tool" (a tool call by the agent and its result).
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
	Thought string `json:"thought,omitempty"`
	// Tool, Arguments and Result are a tool call's.
	Tool      string          `json:"tool,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Result    string          `json:"result,omitempty"`
	Error     bool            `json:"error,omitempty"` // the result is an error ("Error: ...", "Unknown action ...")
	Step      int             `json:"step"`            // the agent's model turn that made it (0: the user's first message)
}

// EpisodeTrial is one episode of an item.
type EpisodeTrial struct {
	Trial     int            `json:"trial"`
	Reward    float64        `json:"reward"`
	Outcome   events.Outcome `json:"outcome"`
	Turns     []EpisodeTurn  `json:"turns"`
	Steps     int            `json:"steps"` // the agent's model turns
	ToolCalls int            `json:"tool_calls"`
	// ToolErrors counts tool calls whose result is an error.
	ToolErrors int  `json:"tool_errors"`
	HitLimit   bool `json:"hit_limit,omitempty"` // max_steps passed before the episode ended
	// Error is why the episode ended early (τ-bench's agent would have
	// raised it): its reward is 0.
	Error string `json:"error,omitempty"`
}

// ReActEpisodes is what a react item on an environment stores.
type ReActEpisodes struct {
	Protocol string         `json:"protocol"`
	MaxSteps int            `json:"max_steps"`
	User     string         `json:"user"`
	Trials   []EpisodeTrial `json:"trials"`
	// Successes counts trials of reward 1; PassHat[k-1] is pass^k.
	Successes int       `json:"successes"`
	PassHat   []float64 `json:"pass_hat"`
}

// StepToolCall is a call to a tool of the run's with the step that made it.
type StepToolCall struct {
	Step int `json:"step"`
	events.ToolCall
}
