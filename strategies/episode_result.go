package strategies

import (
	"fmt"

	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// episodesResult is an item's result from its played trials, as every
// strategy that plays episodes records it (react's protocols, programs
// through the environment endpoint): d's Successes and PassHat are set
// from d.Trials, the metrics are the trials' mean reward, turns, tool calls
// and tool errors, the successes and pass^1..pass^n, the output "c/n". The
// caller sets the detail (d, or a shape that embeds it) once d is complete.
func episodesResult(d *reading.ReActEpisodes) Result {
	var sum, turns, tools, errs float64
	d.Successes, d.PassHat = 0, nil
	for _, tr := range d.Trials {
		sum += tr.Reward
		turns += float64(len(tr.Turns))
		tools += float64(tr.ToolCalls)
		errs += float64(tr.ToolErrors)
		if successful(tr.Reward) {
			d.Successes++
		}
	}
	trials := len(d.Trials)
	n := float64(trials)
	metrics := map[string]float64{"reward": sum / n, "turns": turns / n, "tool_calls": tools / n, "tool_errors": errs / n,
		"successes": float64(d.Successes)}
	for k := 1; k <= trials; k++ {
		p := PassHat(d.Successes, trials, k)
		d.PassHat = append(d.PassHat, p)
		metrics[fmt.Sprintf("pass^%d", k)] = p
	}
	last := d.Trials[trials-1]
	sc := tasks.Score{Correct: successful(last.Reward), Answer: fmt.Sprintf("%d/%d", d.Successes, trials)}
	return Result{Output: sc.Answer, Score: sc, Accuracy: sum / n, Metrics: metrics}
}
