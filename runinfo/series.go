package runinfo

import (
	"strconv"
	"strings"
)

// Per-step metric keys of multi-trial strategies: an item's metrics
// "after_trial_3" and "ran_trial_3" (Reflexion) or "after_iteration_3" and
// "ran_iteration_3" (Self-Refine) become element 2 of a Summary series
// instead of flattened metrics.
const (
	prefixAfterTrial     = "after_trial_"
	prefixRanTrial       = "ran_trial_"
	prefixAfterIteration = "after_iteration_"
	prefixRanIteration   = "ran_iteration_"
)

// maxSeries bounds a series' length (a strategy's trials or iterations).
const maxSeries = 1000

// addSeries puts the run-level mean v of metric key into its series and
// reports whether key was a series key.
func (s *Summary) addSeries(key string, v float64) bool {
	for _, x := range []struct {
		prefix string
		series *[]float64
	}{
		{prefixAfterTrial, &s.PerTrial},
		{prefixRanTrial, &s.PerTrialRan},
		{prefixAfterIteration, &s.PerIteration},
		{prefixRanIteration, &s.PerIterationRan},
	} {
		rest, ok := strings.CutPrefix(key, x.prefix)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > maxSeries {
			return false
		}
		for len(*x.series) < n {
			*x.series = append(*x.series, 0)
		}
		(*x.series)[n-1] = v
		return true
	}
	return false
}
