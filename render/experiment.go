package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Group is one strategy configuration of an experiment: the runs with the
// same task, strategy, parameters, model (and simulator parameters and item
// range), whatever their seeds. Repeats collapse into one Group, whose
// accuracy is the mean of the runs' accuracies.
type Group struct {
	Task       string `json:"task"`
	Strategy   string `json:"strategy"`
	Params     string `json:"params"`      // short form for tables, "k=10 b=5"
	ParamsJSON string `json:"params_json"` // the typed values, canonical JSON
	Model      string `json:"model"`
	Simulated  bool   `json:"simulated"`
	Range      string `json:"range,omitempty"`
	SimParams  string `json:"sim_params,omitempty"`
	Rule       string `json:"rule,omitempty"`
	Prompts    string `json:"prompts,omitempty"`
	// RuleForgeable marks a forgeable rule (Row.RuleForgeable).
	RuleForgeable bool `json:"rule_forgeable,omitempty"`
	// ModelParams says how the model was called when not as by default.
	ModelParams string `json:"model_params,omitempty"`
	// Status is "done" when every run is; otherwise the first other status.
	Status string  `json:"status"`
	RunIDs []int64 `json:"run_ids"`
	Seeds  []int64 `json:"seeds"`
	// Items counts the items over all runs; ItemsMin/ItemsMax per run.
	Items    int `json:"items"`
	ItemsMin int `json:"items_per_run_min"`
	ItemsMax int `json:"items_per_run_max"`
	// Accuracy is the mean of the runs' accuracies; CI its interval
	// (Wilson for one run, Student-t over the runs for several).
	Accuracy float64  `json:"accuracy"`
	CI       Interval `json:"ci"`
	// Metrics are means over the runs that report them.
	Metrics       map[string]float64 `json:"metrics"`
	TokensPerItem float64            `json:"tokens_per_item"`
	CallsPerItem  float64            `json:"calls_per_item"`
	CostPerItem   float64            `json:"cost_per_item"`
	Cost          float64            `json:"cost"`         // total over the runs
	WallSeconds   float64            `json:"wall_seconds"` // mean per run
	CacheHits     int                `json:"cache_hits"`
	SavedTokens   int                `json:"saved_tokens"` // tokens of calls answered from the cache
	SavedCost     float64            `json:"saved_cost"`   // what those calls cost when first made
	// CompletionPerItem and ReasoningPerItem split TokensPerItem's
	// completions, and the reasoning part of those as reported.
	CompletionPerItem float64 `json:"completion_tokens_per_item,omitempty"`
	ReasoningPerItem  float64 `json:"reasoning_tokens_per_item,omitempty"`
	Runs              []Row   `json:"-"`
	// Repeats counts the distinct seeds among the runs (the independent
	// repeats); Reruns the runs that repeat a seed already counted.
	Repeats int `json:"repeats"`
	Reruns  int `json:"reruns,omitempty"`
	// VsBaseline is the paired comparison with the experiment's baseline
	// configuration (nil for the baseline itself, or without one).
	VsBaseline *Comparison `json:"vs_baseline,omitempty"`
	// IsBaseline marks the baseline configuration.
	IsBaseline bool `json:"is_baseline,omitempty"`
}

// NumRuns counts the group's runs.
func (g Group) NumRuns() int { return len(g.Runs) }

// groupKey identifies a configuration.
func groupKey(r Row) string {
	return strings.Join([]string{r.Task, r.Strategy, canonicalJSON(r.ParamsJSON), r.Model,
		strconv.FormatBool(r.Simulated), r.Range, canonicalJSON(r.SimParams), r.Rule, r.Prompts, r.ModelParams}, "\x00")
}

// canonicalJSON re-encodes a JSON value with sorted keys and no spaces, so
// equal parameters compare equal; anything unparseable is kept as is.
func canonicalJSON(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

// Pivot groups runs into configurations, in order of first appearance.
// Runs of one configuration (repeats with other seeds) collapse into one
// Group; their intervals are computed at the given level.
func Pivot(rows []Row, level float64) []Group {
	index := map[string]int{}
	var groups []Group
	for _, r := range rows {
		k := groupKey(r)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, Group{
				Task: r.Task, Strategy: r.Strategy, Params: r.Params, ParamsJSON: canonicalJSON(r.ParamsJSON),
				Model: r.Model, Simulated: r.Simulated, Range: r.Range, SimParams: canonicalJSON(r.SimParams),
				Rule: r.Rule, RuleForgeable: r.RuleForgeable, Prompts: r.Prompts, ModelParams: r.ModelParams, Status: "done",
			})
		}
		groups[i].Runs = append(groups[i].Runs, r)
	}
	for i := range groups {
		groups[i].finish(level)
	}
	return groups
}

func (g *Group) finish(level float64) {
	var (
		accs           []float64
		tokens, calls  int
		compl, reason  int
		msum           = map[string]float64{}
		mcount         = map[string]int{}
		wall           float64
		itemsMin       = -1
		itemsMax       int
		statusNotDone  bool
		runIDs, seeded []int64
	)
	for _, r := range g.Runs {
		runIDs = append(runIDs, r.RunID)
		seeded = append(seeded, r.Seed)
		if r.Status != "done" && !statusNotDone {
			g.Status, statusNotDone = r.Status, true
		}
		accs = append(accs, r.Accuracy)
		g.Items += r.N
		if itemsMin < 0 || r.N < itemsMin {
			itemsMin = r.N
		}
		itemsMax = max(itemsMax, r.N)
		tokens += r.Tokens
		compl += r.CompletionTokens
		reason += r.ReasoningTokens
		calls += r.Calls
		g.Cost += r.Cost
		wall += r.WallSeconds
		for k, v := range r.Metrics {
			msum[k] += v
			mcount[k]++
		}
		g.CacheHits += r.CacheHits
		g.SavedTokens += r.SavedTokens
		g.SavedCost += r.SavedCost
	}
	g.RunIDs, g.Seeds = runIDs, seeded
	g.ItemsMin, g.ItemsMax = max(itemsMin, 0), itemsMax
	g.Metrics = map[string]float64{}
	for k, v := range msum {
		g.Metrics[k] = v / float64(mcount[k])
	}
	if n := len(g.Runs); n > 0 {
		g.WallSeconds = wall / float64(n)
	}
	if g.Items > 0 {
		g.TokensPerItem = float64(tokens) / float64(g.Items)
		g.CompletionPerItem = float64(compl) / float64(g.Items)
		g.ReasoningPerItem = float64(reason) / float64(g.Items)
		g.CallsPerItem = float64(calls) / float64(g.Items)
		g.CostPerItem = g.Cost / float64(g.Items)
	}
	// Only runs that differ in seed are repeats: reruns with a seed already
	// seen measure the same draw again, so they are averaged into their
	// seed's accuracy rather than counted as independent.
	bySeed := map[int64][]float64{}
	var order []int64
	for i, r := range g.Runs {
		if _, ok := bySeed[r.Seed]; !ok {
			order = append(order, r.Seed)
		}
		bySeed[r.Seed] = append(bySeed[r.Seed], accs[i])
	}
	perSeed := make([]float64, len(order))
	for i, seed := range order {
		for _, a := range bySeed[seed] {
			perSeed[i] += a
		}
		perSeed[i] /= float64(len(bySeed[seed]))
	}
	g.Repeats = len(order)
	g.Reruns = len(g.Runs) - len(order)
	if len(order) == 1 {
		g.Accuracy = perSeed[0]
		n := g.Items / len(g.Runs)
		// One seed: the interval over its items, by their scores' kind
		// (Row.CI's rule); reruns' item variances are pooled.
		var v float64
		mean := false
		for _, r := range g.Runs {
			v += r.ItemSD * r.ItemSD / float64(len(g.Runs))
			mean = mean || r.ScoreKind == ScoreMean
		}
		if mean {
			g.CI = ItemsT(g.Accuracy, math.Sqrt(v), n, level)
		} else {
			g.CI = Wilson(g.Accuracy*float64(n), n, level)
		}
		return
	}
	g.Accuracy, g.CI = StudentT(perSeed, level)
}

// ItemsLabel is the items per run, "100", or "50-100" when runs differ.
func (g Group) ItemsLabel() string {
	if g.ItemsMin == g.ItemsMax {
		return strconv.Itoa(g.ItemsMax)
	}
	return fmt.Sprintf("%d-%d", g.ItemsMin, g.ItemsMax)
}

// AnySimulated reports whether any configuration ran on the simulator.
func AnySimulated(groups []Group) bool {
	return slices.ContainsFunc(groups, func(g Group) bool { return g.Simulated })
}

// Labels names each configuration for plots and legends: the strategy and its
// short parameters, plus the task, model, range or simulator parameters
// when those differ between the groups.
func Labels(groups []Group) []string {
	v := varying(groups)
	simKeys := varyingSimKeys(groups)
	out := make([]string, len(groups))
	for i, g := range groups {
		var parts []string
		if v.task {
			parts = append(parts, g.Task)
		}
		parts = append(parts, g.Strategy)
		if g.Params != "" && g.Params != "defaults" {
			parts = append(parts, g.Params)
		}
		if v.model {
			parts = append(parts, g.Model)
		}
		if v.rng {
			parts = append(parts, "["+g.Range+"]")
		}
		if s := simLabel(g.SimParams, simKeys); s != "" {
			parts = append(parts, s)
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

type varies struct{ task, model, rng, sim bool }

func varying(groups []Group) varies {
	var v varies
	for _, g := range groups[min(1, len(groups)):] {
		f := groups[0]
		v.task = v.task || g.Task != f.Task
		v.model = v.model || g.Model != f.Model || g.Simulated != f.Simulated
		v.rng = v.rng || g.Range != f.Range
		v.sim = v.sim || g.SimParams != f.SimParams
	}
	return v
}

// varyingSimKeys lists the simulator parameters whose values differ between
// the simulated groups.
func varyingSimKeys(groups []Group) []string {
	vals := map[string]map[string]bool{}
	var sims []map[string]any
	for _, g := range groups {
		if !g.Simulated || g.SimParams == "" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(g.SimParams), &m) != nil {
			continue
		}
		sims = append(sims, m)
	}
	for _, m := range sims {
		for k := range m {
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
		}
	}
	for k := range vals {
		for _, m := range sims {
			vals[k][fmt.Sprint(m[k])] = true
		}
	}
	var keys []string
	for k, set := range vals {
		if len(set) > 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func simLabel(simParams string, keys []string) string {
	if len(keys) == 0 || simParams == "" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(simParams), &m) != nil {
		return ""
	}
	var parts []string
	for _, k := range keys {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, " ")
}

// Series kinds: per-trial metrics "after_trial_N" (Reflexion) and
// "after_iteration_N" (Self-Refine).
const (
	SeriesTrial     = "after_trial_"
	SeriesIteration = "after_iteration_"
)

// seriesKey reports whether a metric is a per-trial point, and its number.
func seriesKey(k string) (prefix string, n int, ok bool) {
	for _, p := range []string{SeriesTrial, SeriesIteration} {
		if rest, found := strings.CutPrefix(k, p); found {
			if n, err := strconv.Atoi(rest); err == nil {
				return p, n, true
			}
		}
	}
	return "", 0, false
}

// Point is one point of a per-trial series.
type Point struct {
	X int     // trial or iteration number, as in the metric key
	Y float64 // mean accuracy after it
}

// Series returns a group's per-trial accuracy curve from its
// "after_trial_N" (or else "after_iteration_N") metrics, ordered by N, and
// which prefix it used; nil when the group has none.
func (g Group) Series() (string, []Point) {
	byPrefix := map[string][]Point{}
	for _, k := range slices.Sorted(maps.Keys(g.Metrics)) {
		if p, n, ok := seriesKey(k); ok {
			byPrefix[p] = append(byPrefix[p], Point{X: n, Y: g.Metrics[k]})
		}
	}
	for _, p := range []string{SeriesTrial, SeriesIteration} {
		if pts := byPrefix[p]; len(pts) > 0 {
			slices.SortFunc(pts, func(a, b Point) int { return a.X - b.X })
			return p, pts
		}
	}
	return "", nil
}
