package results

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

// ItemKey identifies an item across runs: the instance's key, else its
// row index.
func ItemKey(it store.Item) string {
	if it.Key != "" {
		return it.Key
	}
	return "#" + strconv.Itoa(it.Index)
}

// ItemScores are a run's per-item scores by ItemKey.
func ItemScores(ctx context.Context, st *store.Store, runID int64) (map[string]float64, error) {
	return ItemMetric(ctx, st, runID, "")
}

// ItemMetric is ItemScores for one of the items' metrics (crosswords'
// letter and word, creative's coherency; "" for the score); an item
// without the metric is left out.
func ItemMetric(ctx context.Context, st *store.Store, runID int64, metric string) (map[string]float64, error) {
	items, err := st.Items(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(items))
	for _, it := range items {
		if metric == "" {
			out[ItemKey(it)] = it.Score
		} else if v, ok := it.Metrics[metric]; ok {
			out[ItemKey(it)] = v
		}
	}
	return out, nil
}

// configScores pools a configuration's runs per item (stats.ItemMeans):
// reruns with the same seed first, then the seeds.
func configScores(ctx context.Context, st *store.Store, g render.Group, metric string) (map[string]float64, error) {
	bySeed := map[int64][]map[string]float64{}
	var seeds []int64
	for _, r := range g.Runs {
		s, err := ItemMetric(ctx, st, r.RunID, metric)
		if err != nil {
			return nil, err
		}
		if _, ok := bySeed[r.Seed]; !ok {
			seeds = append(seeds, r.Seed)
		}
		bySeed[r.Seed] = append(bySeed[r.Seed], s)
	}
	var per []map[string]float64
	for _, seed := range seeds {
		per = append(per, stats.ItemMeans(bySeed[seed]))
	}
	return stats.ItemMeans(per), nil
}

// Compare compares each group with groups[base] over the items both
// answered, Holm-adjusting the p-values over the table. A configuration
// with one run and 0/1 scores on both sides gets Newcombe's interval and
// McNemar's test; anything pooled or continuous the paired t.
func Compare(ctx context.Context, st *store.Store, groups []render.Group, base int, level float64) ([]render.Comparison, error) {
	return CompareMetric(ctx, st, groups, base, level, "")
}

// CompareMetric is Compare on one of the items' metrics ("" for the
// score): a metric other than a 0/1 verdict gets the paired t.
func CompareMetric(ctx context.Context, st *store.Store, groups []render.Group, base int, level float64, metric string) ([]render.Comparison, error) {
	if base < 0 || base >= len(groups) {
		return nil, errors.New("no baseline configuration")
	}
	labels := render.Labels(groups)
	baseScores, err := configScores(ctx, st, groups[base], metric)
	if err != nil {
		return nil, err
	}
	var out []render.Comparison
	for i, g := range groups {
		if i == base {
			continue
		}
		scores, err := configScores(ctx, st, g, metric)
		if err != nil {
			return nil, err
		}
		_, a, b := stats.Pair(scores, baseScores)
		binary := g.Repeats <= 1 && groups[base].Repeats <= 1 && stats.Binary(a, b)
		wins, losses := winsLosses(a, b)
		out = append(out, render.Comparison{
			Run: g.RunIDs[0], Runs: g.RunIDs, Baseline: groups[base].RunIDs[0], BaselineRuns: groups[base].RunIDs,
			Label: labels[i], BaseLabel: labels[base], Comparison: stats.ComparePaired(a, b, binary, level), Level: level, Metric: metric,
			Wins: wins, Losses: losses,
		})
	}
	render.HolmAdjust(out)
	return out, nil
}

// winsLosses are the sums of the per-item differences run[i] − base[i]
// where the run scored higher (wins) and, as a positive figure, where it
// scored lower (losses): with 0/1 scores the discordant items each way,
// and always wins − losses = Σ (run[i] − base[i]).
func winsLosses(run, base []float64) (wins, losses float64) {
	for i := range min(len(run), len(base)) {
		if d := run[i] - base[i]; d > 0 {
			wins += d
		} else {
			losses -= d
		}
	}
	return wins, losses
}

// AddPaired sets VsBaseline on every group but groups[base], which is
// marked IsBaseline.
func AddPaired(ctx context.Context, st *store.Store, groups []render.Group, base int, level float64) error {
	cs, err := Compare(ctx, st, groups, base, level)
	if err != nil {
		return err
	}
	groups[base].IsBaseline = true
	j := 0
	for i := range groups {
		if i == base {
			continue
		}
		c := cs[j]
		groups[i].VsBaseline = &c
		j++
	}
	return nil
}

// GroupOfRun returns the index of the group holding a run, -1 if none.
func GroupOfRun(groups []render.Group, runID int64) int {
	return slices.IndexFunc(groups, func(g render.Group) bool { return slices.Contains(g.RunIDs, runID) })
}

// ErrNoBaseline is MatchBaseline's error when no configuration matches.
var ErrNoBaseline = errors.New("no configuration is the baseline")

// MatchBaseline finds the configuration an experiment file's baseline:
// names: a strategy, optionally followed by parameters as the tables show
// them ("tot b=5"). It must match exactly one configuration.
func MatchBaseline(groups []render.Group, spec string) (int, error) {
	fields := strings.Fields(spec)
	if len(fields) == 0 {
		return -1, errors.New("empty baseline")
	}
	var hits []int
	for i, g := range groups {
		if g.Strategy != fields[0] {
			continue
		}
		params := strings.Fields(g.Params)
		if !allIn(fields[1:], params) {
			continue
		}
		hits = append(hits, i)
	}
	labels := render.Labels(groups)
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return -1, fmt.Errorf("%w: baseline %q matches none (have: %s)", ErrNoBaseline, spec, strings.Join(labels, "; "))
	}
	var amb []string
	for _, i := range hits {
		amb = append(amb, labels[i])
	}
	return -1, fmt.Errorf("baseline %q matches %d configurations (%s): add parameters, e.g. %q", spec, len(hits), strings.Join(amb, "; "), groups[hits[0]].Strategy+" "+groups[hits[0]].Params)
}

func allIn(want, have []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// ExperimentBaseline is the baseline an experiment file named
// (`baseline:`), as recorded in its runs' specs: the latest run's that has
// one, "" when none does.
func ExperimentBaseline(runs []store.Run) string {
	for i := len(runs) - 1; i >= 0; i-- {
		var spec struct {
			Config struct {
				Baseline string `json:"baseline"`
			} `json:"config"`
		}
		if json.Unmarshal(runs[i].Spec, &spec) == nil && spec.Config.Baseline != "" {
			return spec.Config.Baseline
		}
	}
	return ""
}

// MixedRules says, in one line, which scoring rule scored which runs when
// the rows were scored by more than one ("" when by one, or when a run
// recorded none): a difference between such runs mixes two rules.
func MixedRules(rows []render.Row) string {
	byRule := map[string][]int64{}
	var order []string
	for _, r := range rows {
		if r.Rule == "" {
			continue
		}
		if _, ok := byRule[r.Rule]; !ok {
			order = append(order, r.Rule)
		}
		byRule[r.Rule] = append(byRule[r.Rule], r.RunID)
	}
	if len(order) < 2 {
		return ""
	}
	parts := make([]string, len(order))
	for i, rule := range order {
		ids := make([]string, len(byRule[rule]))
		for j, id := range byRule[rule] {
			ids[j] = strconv.FormatInt(id, 10)
		}
		parts[i] = fmt.Sprintf("%s (run %s)", rule, strings.Join(ids, ", "))
	}
	return "the runs are scored by different rules: " + strings.Join(parts, "; ") + "; their difference mixes the rules"
}
