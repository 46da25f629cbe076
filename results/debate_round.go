package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/strategies/reading"
)

// How a debate round's answer was decided (RoundOutcome.Kind).
const (
	RoundMajority  = "majority"  // more than half of the agents gave it
	RoundPlurality = "plurality" // the most votes, but not more than half
	RoundTie       = "tie"       // answers share the most votes: the first given wins
	RoundNone      = "none"      // every agent abstained
)

// RoundOutcome is how a debate round's answers decided its answer, as
// bench show and the viewer say it: the counts behind it, and whether it
// was a majority or a tie broken by agent order (strategies.Vote: ties go
// to the answer seen first, so agent 1's when every agent disagrees).
type RoundOutcome struct {
	Kind   string
	Key    string // the answer taken, "" for RoundNone
	Votes  int    // agents that gave it
	Agents int    // agents in the round, abstaining ones included
	// Agent is the first agent (1-based, as the grid numbers them) that
	// gave Key: the one a tie went to; 0 for RoundNone.
	Agent int
	// Counts are each answer's votes, in the order first given, then the
	// abstentions: "5: 2, 7: 1, abstained: 1".
	Counts string
	// Tied are the answers sharing the most votes, for RoundTie.
	Tied []string
}

// OutcomeOf reads a round's outcome from its agents' vote keys and its
// recorded vote (the key taken); a vote that disagrees with the keys (an
// item recorded otherwise) keeps the recorded key.
func OutcomeOf(rd reading.DebateRound) RoundOutcome {
	o := RoundOutcome{Agents: len(rd.Turns)}
	count := map[string]int{}
	first := map[string]int{}
	var order []string
	abstain := 0
	for a, t := range rd.Turns {
		if t.Key == nil {
			abstain++
			continue
		}
		if _, seen := count[*t.Key]; !seen {
			order = append(order, *t.Key)
			first[*t.Key] = a
		}
		count[*t.Key]++
	}
	if len(order) == 0 {
		o.Kind, o.Counts = RoundNone, fmt.Sprintf("abstained: %d", abstain)
		return o
	}
	top := 0
	parts := make([]string, 0, len(order)+1)
	for _, k := range order {
		top = max(top, count[k])
		parts = append(parts, strconv.Quote(k)+": "+strconv.Itoa(count[k]))
	}
	if abstain > 0 {
		parts = append(parts, "abstained: "+strconv.Itoa(abstain))
	}
	o.Counts = strings.Join(parts, ", ")
	for _, k := range order {
		if count[k] == top {
			o.Tied = append(o.Tied, k)
		}
	}
	o.Key = o.Tied[0]
	if rd.Vote.Winner >= 0 && count[rd.Vote.Key] > 0 {
		o.Key = rd.Vote.Key
	}
	o.Votes, o.Agent = count[o.Key], first[o.Key]+1
	switch {
	case len(o.Tied) > 1:
		o.Kind = RoundTie
	case 2*o.Votes > o.Agents:
		o.Kind, o.Tied = RoundMajority, nil
	default:
		o.Kind, o.Tied = RoundPlurality, nil
	}
	return o
}

// Badge names the outcome in a word or two, for the answers it took:
// "majority", "plurality", "tie, given first".
func (o RoundOutcome) Badge() string {
	if o.Kind == RoundTie {
		return "tie, given first"
	}
	return o.Kind
}

// Text says the outcome in one line: `majority "5", 2 of 3 agents ("5":
// 2, "7": 1)`, `tie at 1 of 3 agents each ("5": 1, "7": 1, "9": 1): agent
// 1's "5", as a tie goes to the answer given first`, `plurality "5", 2 of
// 5 agents, not a majority (...)`, `no answer: every agent abstained`.
func (o RoundOutcome) Text() string {
	switch o.Kind {
	case RoundNone:
		return "no answer: every agent abstained"
	case RoundMajority:
		return fmt.Sprintf("majority %q, %d of %d agents (%s)", o.Key, o.Votes, o.Agents, o.Counts)
	case RoundPlurality:
		return fmt.Sprintf("plurality %q, %d of %d agents, not a majority (%s)", o.Key, o.Votes, o.Agents, o.Counts)
	}
	return fmt.Sprintf("tie at %d of %d agents each (%s): agent %d's %q, as a tie goes to the answer given first",
		o.Votes, o.Agents, o.Counts, o.Agent, o.Key)
}
