package events

import "encoding/json"

// ToolCall is the record of one call to an external tool, kept with the
// action that made it (in a strategy's detail) and recorded as a Tool
// event.
type ToolCall struct {
	// ID is the call's identity within the item: server/tool/<12 hex of
	// the arguments' SHA-256>#k, k counting identical calls of the item in
	// the order they were made; with the item it keys the tool cache.
	ID        string          `json:"id"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"` // the server's own name for it
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result"`          // the observation shown
	Error     string          `json:"error,omitempty"` // why the call failed (the tool's error result, a crash, a timeout)
	LatencyMS float64         `json:"latency_ms"`      // of the live call (a replay keeps the original)
	Cached    bool            `json:"cached,omitempty"`
	// ServerFailed marks a call that failed because its server did (it
	// crashed, gave no answer within its timeout, broke the connection),
	// not because the tool refused: counted as a tool failure, never
	// cached.
	ServerFailed bool `json:"server_failed,omitempty"`
}

// Outcome is an episode's verdict, as its environment scores it (kept
// with the episode in a strategy's detail).
type Outcome struct {
	Reward float64 `json:"reward"`
	// Info is the reward's parts as the task records them (τ-bench:
	// r_actions, r_outputs, the outputs found, the data hashes, the gold
	// actions and the actions taken).
	Info json.RawMessage `json:"info,omitempty"`
	// UserCalls and UserCost are what the simulated user asked of its model.
	UserCalls int `json:"user_calls"`
}
