package reading

import (
	"encoding/json"
	"fmt"
)

// DebateTurn is one agent's answer in one round.
type DebateTurn struct {
	Output  string  `json:"output"`
	Key     *string `json:"key"` // its vote key, nil when it abstains
	Answer  string  `json:"answer"`
	Correct bool    `json:"correct"`
}

// DebateRound is a round's answers, agents in order, and the majority
// of them: what the debate would answer had it stopped there.
type DebateRound struct {
	Turns   []DebateTurn `json:"turns"`
	Vote    VoteResult   `json:"vote"`
	Correct bool         `json:"correct"` // the majority's verdict
}

// DebateDetail is a debate item's transcript, rounds × agents.
type DebateDetail struct {
	// Judged is the judge's answer (final=judge), nil under majority.
	Judged *string       `json:"judged,omitempty"`
	Agents int           `json:"agents"`
	Models []string      `json:"models,omitempty"` // each agent's model, when not all the run's
	Rounds []DebateRound `json:"rounds"`
}

// ReadTranscript reads a debate item's transcript (debate's Rounds
// reader); false when the detail has none.
func ReadTranscript(detail []byte) (DebateDetail, bool) {
	var d DebateDetail
	if json.Unmarshal(detail, &d) != nil || len(d.Rounds) == 0 || d.Agents == 0 {
		return DebateDetail{}, false
	}
	return d, true
}

// viewDebate draws a debate item's transcript.
func viewDebate(detail []byte) ItemView {
	d, ok := ReadTranscript(detail)
	if !ok {
		return ItemView{}
	}
	c := d.conversation()
	return ItemView{Transcript: &d, Conversation: &c}
}

// DebateCall is the identity (llm.Request.Call) of agent a's call in round
// r, both counted from 0 ("r0/a2": round 1's third agent, as the grid
// numbers them from 1). It keys the response cache and a resume, so it
// never changes; the read side shows the grid's numbers beside it.
func DebateCall(r, a int) string { return fmt.Sprintf("r%d/a%d", r, a) }
