package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// writeDebate prints a debate item's transcript: each round's majority,
// then each agent's vote key, verdict and answer.
func writeDebate(w io.Writer, detail json.RawMessage) {
	d, ok := reading.ReadTranscript(detail)
	if !ok {
		return
	}
	fmt.Fprintf(w, "\ndebate (%d agents × %d rounds; each round's answer is the most frequent under the vote key, a tie going to the answer given first, so agent 1's when all disagree; agent a's call in round r is r<r-1>/a<a-1>):\n", d.Agents, len(d.Rounds))
	for r, rd := range d.Rounds {
		fmt.Fprintf(w, "round %d: %s (correct: %v)\n", r+1, results.OutcomeOf(rd).Text(), rd.Correct)
		for a, t := range rd.Turns {
			model := ""
			if a < len(d.Models) && d.Models[a] != "" {
				model = " [" + d.Models[a] + "]"
			}
			key := "(abstains)"
			if t.Key != nil {
				key = keyText(*t.Key, true)
			}
			fmt.Fprintf(w, "  agent %d%s (call %s): key %s, correct: %v\n%s\n", a+1, model, reading.DebateCall(r, a), key, t.Correct, indent(indent(t.Output)))
		}
	}
	if d.Judged != nil {
		fmt.Fprintf(w, "judge's answer (final=judge; the output):\n%s\n", indent(*d.Judged))
	}
}

func keyText(k string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("%q", k)
}
