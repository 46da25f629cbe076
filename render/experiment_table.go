package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ExperimentFormats lists the formats WriteExperiment accepts.
var ExperimentFormats = []string{"md", "csv", "latex", "json"}

// metricTitles are the display names of well-known metrics in Markdown and
// LaTeX; CSV and JSON keep the keys.
var metricTitles = map[string]string{
	"best_of_k": "best-of-k", "any_at_b": "any@b", "top1": "top1", "em": "EM", "f1": "F1",
}

func metricTitle(k string) string {
	if t, ok := metricTitles[k]; ok {
		return t
	}
	return k
}

// groupMetricColumns lists the metrics to tabulate: the well-known ones
// first, then the rest by name; per-trial series (after_trial_N) are left
// to plots and JSON.
func groupMetricColumns(groups []Group) []string {
	rows := make([]Row, 0, len(groups))
	for _, g := range groups {
		m := map[string]float64{}
		for k, v := range g.Metrics {
			if _, _, series := seriesKey(k); !series {
				m[k] = v
			}
		}
		rows = append(rows, Row{Metrics: m})
	}
	return metricColumns(rows)
}

func formatInterval(iv Interval) string {
	return fmt.Sprintf("[%.3f, %.3f]", iv.Low, iv.High)
}

// intervalMark is the footnote mark of an interval's method.
func intervalMark(iv Interval) string {
	switch iv.Method {
	case MethodWilson:
		return "W"
	case MethodStudentT:
		return "t"
	case MethodItemsT:
		return "ti"
	}
	return ""
}

// savings totals what cache hits saved over the groups.
func savings(groups []Group) (hits, tokens int, cost float64) {
	for _, g := range groups {
		hits += g.CacheHits
		tokens += g.SavedTokens
		cost += g.SavedCost
	}
	return
}

func savedCell(g Group, withCost bool) string {
	if g.SavedTokens == 0 && g.SavedCost == 0 {
		return "0"
	}
	if withCost {
		return fmt.Sprintf("$%.4f, %d tok", g.SavedCost, g.SavedTokens)
	}
	return fmt.Sprintf("%d tok", g.SavedTokens)
}

// experimentNotes are the footnotes under Markdown and LaTeX tables.
func experimentNotes(groups []Group) []string {
	var notes []string
	var wilson, student, itemsT bool
	level := Level
	for _, g := range groups {
		wilson = wilson || g.CI.Method == MethodWilson
		student = student || g.CI.Method == MethodStudentT
		itemsT = itemsT || g.CI.Method == MethodItemsT
		if g.CI.Level > 0 {
			level = g.CI.Level
		}
	}
	pct := strconv.FormatFloat(level*100, 'g', -1, 64)
	if wilson {
		notes = append(notes, fmt.Sprintf("W: %s%% Wilson score interval for a single run (Wilson, n items; successes = accuracy*n).", pct))
	}
	if itemsT {
		notes = append(notes, fmt.Sprintf("ti: %s%% Student-t interval over a single run's items, whose scores lie between 0 and 1 (io/cot k>1: the mean over k samples): mean +/- t(df = n-1) * sd/sqrt(n) of the item scores, clipped to [0, 1].", pct))
	}
	if student {
		notes = append(notes, fmt.Sprintf("t: %s%% Student-t interval, mean +/- t(df = runs-1) * sd/sqrt(runs) over the runs' accuracies (repeats with other seeds), clipped to [0, 1].", pct))
	}
	if slices.ContainsFunc(groups, func(g Group) bool { return g.Reruns > 0 }) {
		var single []string
		for i, g := range groups {
			if g.Repeats == 1 && g.Reruns > 0 {
				single = append(single, Labels(groups)[i])
			}
		}
		s := "Runs with the same seed are reruns, not repeats: their accuracies are averaged into one measurement per seed."
		if len(single) > 0 {
			s += " No repeats with other seeds for " + strings.Join(single, "; ") + ": their interval is Wilson over one run's items."
		}
		notes = append(notes, s)
	}
	if hasPaired(groups) {
		var cs []Comparison
		base := ""
		for i, g := range groups {
			if g.VsBaseline != nil {
				cs = append(cs, *g.VsBaseline)
			}
			if g.IsBaseline {
				base = Labels(groups)[i]
			}
		}
		notes = append(notes, fmt.Sprintf("vs baseline: each configuration minus the baseline (%s) over the items both answered.", base))
		notes = append(notes, CompareNotes(cs)...)
	}
	if hits, tokens, cost := savings(groups); hits > 0 {
		calls := "calls were"
		if hits == 1 {
			calls = "call was"
		}
		s := fmt.Sprintf("Cache: %d %s answered from the response cache, saving %d tokens", hits, calls, tokens)
		if cost > 0 {
			s += fmt.Sprintf(" and $%.4f", cost)
		}
		notes = append(notes, s+"; tokens/item and calls/item count them as if made.")
	}
	if slices.ContainsFunc(groups, func(g Group) bool { return modelDefaultTemperature(g.Params) }) {
		notes = append(notes, TemperatureDefaultNote)
	}
	if slices.ContainsFunc(groups, func(g Group) bool { return g.RuleForgeable }) {
		notes = append(notes, ForgeableNote)
	}
	if AnySimulated(groups) {
		notes = append(notes, "(simulated): results of the built-in simulated model, a seeded stochastic stand-in, not a language model.")
	}
	return notes
}

// experimentTable lays out the Markdown/LaTeX table of groups.
func experimentTable(groups []Group) (header []string, body [][]cell, right []bool) {
	v := varying(groups)
	simKeys := varyingSimKeys(groups)
	mcols := groupMetricColumns(groups)
	anyCost := slices.ContainsFunc(groups, func(g Group) bool { return g.Cost != 0 })
	_, _, savedCost := savings(groups)
	anySaved := slices.ContainsFunc(groups, func(g Group) bool { return g.SavedTokens != 0 || g.SavedCost != 0 })
	pct := strconv.FormatFloat(Level*100, 'g', -1, 64)

	type col struct {
		title string
		right bool
		value func(Group) cell
	}
	txt := func(s string) cell { return cell{text: s} }
	cols := []col{
		{"task", false, func(g Group) cell { return txt(g.Task) }},
		{"strategy", false, func(g Group) cell { return txt(strategyText(g.Strategy, g.Status)) }},
		{"params", false, func(g Group) cell { return txt(g.Params) }},
		{"model", false, func(g Group) cell { return txt(ModelText(g.Model, g.Simulated)) }},
	}
	if slices.ContainsFunc(groups, func(g Group) bool { return g.ModelParams != "" }) {
		cols = append(cols, col{"model params", false, func(g Group) cell { return txt(g.ModelParams) }})
	}
	cols = append(cols, []col{
		{"rule", false, func(g Group) cell { return txt(RuleText(g.Rule, g.RuleForgeable)) }},
		{"prompts", false, func(g Group) cell { return txt(g.Prompts) }},
	}...)
	if v.rng {
		cols = append(cols, col{"range", false, func(g Group) cell { return txt(g.Range) }})
	}
	if len(simKeys) > 0 {
		cols = append(cols, col{"sim", false, func(g Group) cell { return txt(simLabel(g.SimParams, simKeys)) }})
	}
	cols = append(cols,
		col{"runs", true, func(g Group) cell { return txt(strconv.Itoa(g.NumRuns())) }},
		col{"n", true, func(g Group) cell { return txt(g.ItemsLabel()) }},
		col{"accuracy", true, func(g Group) cell { return txt(fmt.Sprintf("%.3f", g.Accuracy)) }},
		col{pct + "% CI", true, func(g Group) cell { return cell{formatInterval(g.CI), intervalMark(g.CI)} }},
	)
	if hasPaired(groups) {
		cols = append(cols,
			col{"vs baseline", true, func(g Group) cell {
				if g.IsBaseline {
					return txt("baseline")
				}
				if c := g.VsBaseline; c != nil {
					return txt(fmt.Sprintf("%+.3f", noNegZero(c.Difference)))
				}
				return txt("")
			}},
			col{"paired " + pct + "% CI", true, func(g Group) cell {
				if c := g.VsBaseline; c != nil {
					return cell{formatDiffCI(*c), shortMethod(*c)}
				}
				return txt("")
			}},
			col{"p (Holm)", true, func(g Group) cell {
				if c := g.VsBaseline; c != nil {
					return txt(formatP(c.PHolm))
				}
				return txt("")
			}},
			col{"wins/losses", true, func(g Group) cell {
				if c := g.VsBaseline; c != nil {
					wins, losses := c.WinsText()
					return txt(wins + "/" + losses)
				}
				return txt("")
			}},
		)
	}
	for _, m := range mcols {
		cols = append(cols, col{metricTitle(m), true, func(g Group) cell {
			if v, ok := g.Metrics[m]; ok {
				return txt(MetricText(m, v))
			}
			return txt("")
		}})
	}
	cols = append(cols,
		col{"tokens/item", true, func(g Group) cell { return txt(fmt.Sprintf("%.0f", g.TokensPerItem)) }},
	)
	if slices.ContainsFunc(groups, func(g Group) bool { return g.ReasoningPerItem != 0 }) {
		cols = append(cols,
			col{"completion/item", true, func(g Group) cell { return txt(fmt.Sprintf("%.0f", g.CompletionPerItem)) }},
			col{"reasoning/item", true, func(g Group) cell { return txt(fmt.Sprintf("%.0f", g.ReasoningPerItem)) }})
	}
	cols = append(cols,
		col{"calls/item", true, func(g Group) cell { return txt(fmt.Sprintf("%.1f", g.CallsPerItem)) }},
	)
	if anyCost {
		cols = append(cols, col{"cost/item", true, func(g Group) cell { return txt(fmt.Sprintf("$%.4f", g.CostPerItem)) }})
	}
	cols = append(cols, col{"wall_s", true, func(g Group) cell { return txt(fmt.Sprintf("%.1f", g.WallSeconds)) }})
	if anySaved {
		cols = append(cols, col{"saved (cache)", true, func(g Group) cell { return txt(savedCell(g, savedCost != 0)) }})
	}
	for _, c := range cols {
		header = append(header, c.title)
		right = append(right, c.right)
	}
	for _, g := range groups {
		line := make([]cell, len(cols))
		for i, c := range cols {
			line[i] = c.value(g)
		}
		body = append(body, line)
	}
	return header, body, right
}

// WriteExperiment renders an experiment's configurations (from Pivot) in
// one of ExperimentFormats. title names the experiment (or selection).
func WriteExperiment(w io.Writer, format, title string, groups []Group) error {
	return WriteExperimentColumns(w, format, title, groups, nil)
}

// WriteExperimentColumns is WriteExperiment with the LaTeX table's columns
// chosen by header name, in order (bench report --columns).
func WriteExperimentColumns(w io.Writer, format, title string, groups []Group, cols []string) error {
	header, body, right := experimentTable(groups)
	return writeTable(w, format, table{header: header, body: body, right: right, notes: experimentNotes(groups),
		caption: experimentCaption(title, groups), csv: experimentCSV(title, groups), json: experimentJSON(title, groups)}, cols)
}

func experimentCaption(title string, groups []Group) string {
	runs := 0
	for _, g := range groups {
		runs += g.NumRuns()
	}
	s := fmt.Sprintf("%s: accuracy of %d configurations (%d runs) with %g%% confidence intervals", title, len(groups), runs, Level*100)
	if AnySimulated(groups) {
		s += " (simulated: results of the built-in simulated model, not a language model)"
	}
	return s
}

// ftoa prints v without float noise (0.43500000000000005 is 0.435) and
// without an exponent.
func ftoa(v float64) string { return strconv.FormatFloat(Round(v), 'f', -1, 64) }

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, " ")
}

// experimentCSV is the experiment table as CSV: every figure in its own
// column, the run ids and seeds of each configuration.
func experimentCSV(title string, groups []Group) [][]string {
	mcols := groupMetricColumns(groups)
	header := []string{"experiment", "task", "strategy", "params", "params_json", "model", "simulated", "range", "sim_params",
		"rule", "prompts", "status", "runs", "run_ids", "seeds", "n_items", "items_per_run", "accuracy", "ci_low", "ci_high", "ci_level", "ci_method"}
	header = append(header, mcols...)
	header = append(header, "tokens_per_item", "calls_per_item", "cost_per_item", "cost_total", "wall_seconds",
		"cache_hits", "saved_tokens", "saved_cost")
	// Only when some configuration has them, so other tables keep their columns.
	extra := slices.ContainsFunc(groups, func(g Group) bool { return g.ModelParams != "" || g.ReasoningPerItem != 0 })
	if extra {
		header = append(header, "model_params", "completion_tokens_per_item", "reasoning_tokens_per_item")
	}
	paired := hasPaired(groups)
	if paired {
		header = append(header, "is_baseline", "difference", "diff_ci_low", "diff_ci_high", "diff_ci_method", "p_value", "test", "p_holm",
			"run_only", "baseline_only", "mdd", "wins", "losses")
	}
	out := [][]string{header}
	for _, g := range groups {
		line := []string{title, g.Task, g.Strategy, g.Params, g.ParamsJSON, g.Model, strconv.FormatBool(g.Simulated), g.Range,
			g.SimParams, RuleText(g.Rule, g.RuleForgeable), g.Prompts, g.Status, strconv.Itoa(g.NumRuns()), joinInts(g.RunIDs), joinInts(g.Seeds), strconv.Itoa(g.Items),
			g.ItemsLabel(), ftoa(g.Accuracy), ftoa(g.CI.Low), ftoa(g.CI.High), ftoa(g.CI.Level), g.CI.Describe()}
		for _, m := range mcols {
			if v, ok := g.Metrics[m]; ok {
				line = append(line, ftoa(v))
			} else {
				line = append(line, "")
			}
		}
		line = append(line, ftoa(g.TokensPerItem), ftoa(g.CallsPerItem), ftoa(g.CostPerItem), ftoa(g.Cost), ftoa(g.WallSeconds),
			strconv.Itoa(g.CacheHits), strconv.Itoa(g.SavedTokens), ftoa(g.SavedCost))
		if extra {
			line = append(line, g.ModelParams, ftoa(g.CompletionPerItem), ftoa(g.ReasoningPerItem))
		}
		if paired {
			line = append(line, strconv.FormatBool(g.IsBaseline))
			if c := g.VsBaseline; c != nil {
				mdd, ok := c.MDD(MDDAlpha, MDDPower)
				line = append(line, ftoa(Round(c.Difference)), numCell(c.Low, true), numCell(c.High, true), c.CIMethod,
					numCell(c.P, true), c.Test, numCell(c.PHolm, true), strconv.Itoa(c.RunOnly), strconv.Itoa(c.BaselineOnly), numCell(mdd, ok),
					ftoa(Round(c.Wins)), ftoa(Round(c.Losses)))
			} else {
				line = append(line, "", "", "", "", "", "", "", "", "", "", "", "")
			}
		}
		out = append(out, line)
	}
	return out
}

// experimentJSON is the experiment document the json format encodes.
func experimentJSON(title string, groups []Group) any {
	type groupJSON struct {
		Label string `json:"label"`
		Group
		CIMethod string `json:"ci_method"`
	}
	labels := Labels(groups)
	confs := make([]groupJSON, len(groups))
	for i, g := range groups {
		confs[i] = groupJSON{Label: labels[i], Group: g, CIMethod: g.CI.Describe()}
	}
	hits, tokens, cost := savings(groups)
	doc := struct {
		Experiment     string      `json:"experiment"`
		Simulated      bool        `json:"simulated"`
		Level          float64     `json:"level"`
		Configurations []groupJSON `json:"configurations"`
		Cache          struct {
			Hits        int     `json:"hits"`
			SavedTokens int     `json:"saved_tokens"`
			SavedCost   float64 `json:"saved_cost"`
		} `json:"cache"`
	}{Experiment: title, Simulated: AnySimulated(groups), Level: Level, Configurations: confs}
	doc.Cache.Hits, doc.Cache.SavedTokens, doc.Cache.SavedCost = hits, tokens, cost
	return doc
}

// hasPaired reports whether the groups carry comparisons with a baseline.
func hasPaired(groups []Group) bool {
	return slices.ContainsFunc(groups, func(g Group) bool { return g.VsBaseline != nil })
}

// ExperimentTableCells is the experiment table as the Markdown format lays
// it out, cell by cell, with its notes: for pages that render it as a
// table of their own.
func ExperimentTableCells(groups []Group) (header []string, rows [][]string, right []bool, notes []string) {
	header, body, right := experimentTable(groups)
	rows = make([][]string, len(body))
	for i, line := range body {
		rows[i] = make([]string, len(line))
		for j, c := range line {
			rows[i][j] = c.text
			if c.mark != "" {
				rows[i][j] += " " + c.mark
			}
		}
	}
	return header, rows, right, experimentNotes(groups)
}
