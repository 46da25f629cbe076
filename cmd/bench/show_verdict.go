package main

import (
	"fmt"
	"io"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

// An item of io or cot with k > 1 scores the share of its samples right
// while its stored verdict is its first sample's (the output): bench show
// prints the tally instead of a bare correct=, which read "correct=false
// score=0.400" beside "correct=true score=0.200".

// verdictLine is an item's verdict and score as bench show lists it.
func verdictLine(strategy string, it store.Item) string {
	if t, ok := results.TallyOf(strategy, it.Detail); ok {
		return fmt.Sprintf("right=%-7s score=%.3f first=%-5s", fmt.Sprintf("%d/%d", t.Right, t.Of), it.Score, rightWrong(it.Correct))
	}
	return fmt.Sprintf("correct=%-5v score=%.3f", it.Correct, it.Score)
}

// verdictDetail is an item's verdict and score as bench show --item
// prints them.
func verdictDetail(strategy string, it store.Item) string {
	if t, ok := results.TallyOf(strategy, it.Detail); ok {
		return fmt.Sprintf("right: %d of %d samples  score: %.3f (the share right; the run's accuracy averages it)  first sample (the output below): %s",
			t.Right, t.Of, it.Score, rightWrong(it.Correct))
	}
	if results.PartScore(it.Score) {
		return fmt.Sprintf("score: %.3f (between 0 and 1; the run's accuracy averages it)  correct: %v (the output's own verdict)", it.Score, it.Correct)
	}
	return fmt.Sprintf("correct: %v  score: %.3f", it.Correct, it.Score)
}

// writeVerdictLegend says, once above the list, what the columns are when
// an item's verdict and score can differ.
func writeVerdictLegend(w io.Writer, strategy string, items []store.Item) {
	tally, part := false, false
	for _, it := range items {
		if _, ok := results.TallyOf(strategy, it.Detail); ok {
			tally = true
		} else if results.PartScore(it.Score) {
			part = true
		}
	}
	if tally {
		fmt.Fprintln(w, "right=R/K: samples right of the item's K; score: that share, which the run's accuracy averages; first: the verdict of the first sample, the item's output")
	}
	if part {
		fmt.Fprintln(w, "score between 0 and 1: a mean over the item's samples or trials, or a graded score, which the run's accuracy averages; correct: the verdict of the item's output alone")
	}
}

// writeRuleLine prints the run's scoring rule, marked and explained, when
// the rule is forgeable (render.ForgeableNote); other rules are left to
// bench report, as before.
func writeRuleLine(w io.Writer, run store.Run) {
	rule, forgeable := results.RuleOf(bench.Catalog{}, run)
	if !forgeable {
		return
	}
	fmt.Fprintf(w, "rule: %s\n  %s\n", render.RuleText(rule, true), render.ForgeableNote)
}

func rightWrong(correct bool) string {
	if correct {
		return "right"
	}
	return "wrong"
}
