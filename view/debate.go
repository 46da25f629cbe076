package view

import (
	"fmt"

	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// debateCell is one agent's answer in one round, with the call that drew it.
type debateCell struct {
	reading.DebateTurn
	KeyText string // its vote key, "" when it abstains
	Winner  bool   // the round's majority went to this agent's answer
	CallID  int64  // 0 when the call is not recorded
	Call    string // the call's identity, numbered from 0 ("r0/a2")
}

// debateRow is a round of the grid.
type debateRow struct {
	Round    int
	Cells    []debateCell
	Majority string // the round's answer (its vote key), "" when every agent abstained
	Correct  bool
	// Outcome says how the answer was decided: the counts, and majority,
	// plurality or a tie broken by agent order.
	Outcome results.RoundOutcome
}

// transcriptGrid lays a transcript out as a grid, rounds down and agents
// across.
func transcriptGrid(d reading.DebateDetail, calls []callView) map[string]any {
	ids := map[string]int64{}
	for _, c := range calls {
		if c.Identity != "" {
			ids[c.Identity] = c.ID
		}
	}
	rows := make([]debateRow, len(d.Rounds))
	for r, rd := range d.Rounds {
		row := debateRow{Round: r + 1, Correct: rd.Correct, Cells: make([]debateCell, len(rd.Turns)), Outcome: results.OutcomeOf(rd)}
		if rd.Vote.Winner >= 0 {
			row.Majority = rd.Vote.Key
		}
		for a, t := range rd.Turns {
			c := debateCell{DebateTurn: t, Call: reading.DebateCall(r, a)}
			c.CallID = ids[c.Call]
			if t.Key != nil {
				c.KeyText = *t.Key
				c.Winner = rd.Vote.Winner >= 0 && *t.Key == rd.Vote.Key
			}
			row.Cells[a] = c
		}
		rows[r] = row
	}
	agents := make([]string, d.Agents)
	for a := range agents {
		agents[a] = fmt.Sprintf("agent %d", a+1)
		if a < len(d.Models) && d.Models[a] != "" {
			agents[a] += " · " + d.Models[a]
		}
	}
	out := map[string]any{"Agents": agents, "Rounds": rows}
	if d.Judged != nil {
		out["Judged"] = *d.Judged
	}
	return out
}

// placeDebateCalls names each debate call's place in the grid beside its
// identity: "r0/a2" is drawn as round 1, agent 3. The identity keys the
// cache and a resume, so only how it is shown follows the grid.
func placeDebateCalls(calls []callView, d reading.DebateDetail) {
	place := map[string]string{}
	for r, rd := range d.Rounds {
		for a := range rd.Turns {
			place[reading.DebateCall(r, a)] = fmt.Sprintf("round %d, agent %d", r+1, a+1)
		}
	}
	for i := range calls {
		calls[i].Place = place[calls[i].Identity]
	}
}
