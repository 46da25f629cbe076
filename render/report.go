// Package render writes rows already computed as tables and plots:
// Markdown (tablewriter), CSV, LaTeX (booktabs), JSON and SVG/PNG; it
// queries no store, unlike runinfo (one run's facts) and results (the
// rows built from many runs), which compute what it writes. It also pivots rows into one row per
// configuration with confidence intervals (experiment.go, stats.go) and
// plots accuracy against cost (plot.go).
package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Row is one run in a comparison table.
type Row struct {
	RunID       int64              `json:"run_id"`
	Task        string             `json:"task"`
	Strategy    string             `json:"strategy"`
	Params      string             `json:"params"`
	Model       string             `json:"model"`
	Simulated   bool               `json:"simulated"`
	Status      string             `json:"status"`
	N           int                `json:"n"`
	Accuracy    float64            `json:"accuracy"`
	Metrics     map[string]float64 `json:"metrics"`
	Tokens      int                `json:"tokens"`
	Calls       int                `json:"calls"`
	Cost        float64            `json:"cost"`
	WallSeconds float64            `json:"wall_seconds"`
	Rule        string             `json:"rule,omitempty"`    // scoring rule, e.g. game24/paper
	Prompts     string             `json:"prompts,omitempty"` // prompt pack: bundled or folder:HASH
	// RuleForgeable marks a rule under which the program scored can forge
	// its verdict (tasks.RuleForgeable): its numbers are shown marked.
	RuleForgeable bool `json:"rule_forgeable,omitempty"`
	// ModelParams says how the model was called when not as by default:
	// "api=completions reasoning_effort=high think=keep".
	ModelParams string `json:"model_params,omitempty"`
	// CompletionTokens is the completion part of Tokens; ReasoningTokens
	// the part of CompletionTokens the model spent thinking, as reported.
	CompletionTokens int `json:"completion_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`

	// For experiment tables (Pivot): what identifies a configuration, the
	// seed that tells repeats apart, and what cache hits saved.
	Experiment  string  `json:"experiment,omitempty"`
	Seed        int64   `json:"seed"`
	ParamsJSON  string  `json:"params_json,omitempty"` // typed parameter values as JSON
	Range       string  `json:"range,omitempty"`
	SimParams   string  `json:"sim_params,omitempty"` // simulator noise parameters, JSON
	CacheHits   int     `json:"cache_hits,omitempty"`
	SavedTokens int     `json:"saved_tokens,omitempty"` // tokens of calls answered from the cache
	SavedCost   float64 `json:"saved_cost,omitempty"`   // their cost when first made

	// ScoreKind is what the items' scores are (ScoreBinary, ScoreMean; ""
	// is read as 0/1) and ItemSD their sample standard deviation: they
	// choose the interval (results.Row sets both from the items).
	ScoreKind string  `json:"score_kind,omitempty"`
	ItemSD    float64 `json:"item_sd,omitempty"`
}

// CI is the row's interval at Level, by the kind of its items' scores:
// Wilson's for 0/1 items (accuracy·n successes in n items), Student-t over
// the items for scores in between (a mean over k samples per item is a
// cluster of k, not k independent trials: Wilson on accuracy·n would
// treat it as n Bernoulli items and be too wide or too narrow).
func (r Row) CI() Interval {
	if r.ScoreKind == ScoreMean {
		return ItemsT(r.Accuracy, r.ItemSD, r.N, Level)
	}
	return Wilson(r.Accuracy*float64(r.N), r.N, Level)
}

// ciHeader names the rows' interval: "95% CI (Wilson)" or "95% CI (t)",
// or "95% CI" when rows differ (each cell then names its own).
func ciHeader(rows []Row) (header string, mixed bool) {
	names := map[string]bool{}
	for _, r := range rows {
		names[r.CI().Name()] = true
	}
	if len(names) == 1 {
		for n := range names {
			return "95% CI (" + n + ")", false
		}
	}
	return "95% CI", len(names) > 1
}

// Formats lists the table formats Write accepts.
var Formats = []string{"md", "csv", "latex", "json"}

// metricOrder puts the well-known metrics first.
var metricOrder = []string{"best_of_k", "any_at_b", "top1", "em", "f1"}

func metricColumns(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Metrics {
			seen[k] = true
		}
	}
	var cols []string
	for _, k := range metricOrder {
		if seen[k] {
			cols = append(cols, k)
			delete(seen, k)
		}
	}
	var rest []string
	for k := range seen {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	return append(cols, rest...)
}

// ModelText labels a model, marking the simulator's results.
func ModelText(model string, simulated bool) string {
	if simulated {
		return model + " (simulated)"
	}
	return model
}

// RuleText names a scoring rule in a table, marking a forgeable one (the
// mark ForgeableNote explains).
func RuleText(rule string, forgeable bool) string {
	if forgeable {
		return strings.TrimSpace(rule + " (FORGEABLE)")
	}
	return rule
}

// ForgeableNote explains the mark of a forgeable rule.
const ForgeableNote = "FORGEABLE: scored by a rule under which the program being scored runs in the process that writes the verdicts, so it can forge its own verdict and, where problems share a namespace (Reflexion's namespace=shared presets), a later problem's: for replaying logged runs, not for judging models (docs/code-verdicts.md#the-reference-rule-is-forgeable)."

// strategyText names a strategy, marking a run that did not finish.
func strategyText(strategy, status string) string {
	if status != "done" {
		return strategy + " [" + status + "]"
	}
	return strategy
}

// cells lays out header and body as text; the interval is one column
// "[low, high]" for reading, or ci_low and ci_high for CSV.
func cells(rows []Row, csv bool) ([]string, [][]string) {
	mcols := metricColumns(rows)
	modelParams := slices.ContainsFunc(rows, func(r Row) bool { return r.ModelParams != "" })
	reasoning := slices.ContainsFunc(rows, func(r Row) bool { return r.ReasoningTokens != 0 })
	header := []string{"run", "task", "strategy", "params", "model"}
	if modelParams {
		header = append(header, "model params")
	}
	header = append(header, "rule", "prompts", "n", "accuracy")
	ciName, mixed := ciHeader(rows)
	if csv {
		header = append(header, "ci_low", "ci_high", "ci_method")
	} else {
		header = append(header, ciName)
	}
	header = append(header, mcols...)
	header = append(header, "tokens")
	if reasoning {
		header = append(header, "completion", "reasoning")
	}
	header = append(header, "calls", "wall_s")
	var body [][]string
	for _, r := range rows {
		line := []string{fmt.Sprint(r.RunID), r.Task, strategyText(r.Strategy, r.Status), r.Params, ModelText(r.Model, r.Simulated)}
		if modelParams {
			line = append(line, r.ModelParams)
		}
		line = append(line, RuleText(r.Rule, r.RuleForgeable), r.Prompts, fmt.Sprint(r.N), fmt.Sprintf("%.3f", r.Accuracy))
		switch ci := r.CI(); {
		case csv:
			line = append(line, fmt.Sprintf("%.4f", ci.Low), fmt.Sprintf("%.4f", ci.High), ci.Method)
		case mixed:
			line = append(line, formatInterval(ci)+" "+ci.Name())
		default:
			line = append(line, formatInterval(ci))
		}
		for _, m := range mcols {
			if v, ok := r.Metrics[m]; ok {
				line = append(line, MetricText(m, v))
			} else {
				line = append(line, "")
			}
		}
		line = append(line, fmt.Sprint(r.Tokens))
		if reasoning {
			line = append(line, fmt.Sprint(r.CompletionTokens), fmt.Sprint(r.ReasoningTokens))
		}
		line = append(line, fmt.Sprint(r.Calls), fmt.Sprintf("%.1f", r.WallSeconds))
		body = append(body, line)
	}
	return header, body
}

// Write renders rows in the given format.
func Write(w io.Writer, format string, rows []Row) error { return WriteColumns(w, format, rows, nil) }

// WriteColumns is Write with the LaTeX table's columns chosen by header
// name, in order (bench report --columns); other formats take none.
func WriteColumns(w io.Writer, format string, rows []Row, cols []string) error {
	header, body := cells(rows, false)
	csvHeader, csvBody := cells(rows, true) // numbers unrounded
	caption := "reasonbench runs; 95% CI: " + strings.Join(intervalNotes(rows), "; ")
	if slices.ContainsFunc(rows, func(r Row) bool { return r.Simulated }) {
		caption += "; (simulated): results from the built-in simulated model, not a language model"
	}
	type rowJSON struct {
		Row
		CI Interval `json:"ci"`
	}
	out := make([]rowJSON, len(rows))
	for i, r := range rows {
		out[i] = rowJSON{r, r.CI()}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), notes: rowNotes(rows), caption: caption,
		csv: append([][]string{csvHeader}, csvBody...), json: out}, cols)
}

// rightAligned marks the numeric columns of a table.
func rightAligned(header []string) []bool {
	right := make([]bool, len(header))
	for i, h := range header {
		switch h {
		case "task", "strategy", "params", "model", "model params", "rule", "prompts", "range", "sim", "configuration":
		default:
			right[i] = true
		}
	}
	return right
}

// TableCells is the run table as the Markdown format lays it out, cell by
// cell, with which columns are numbers and its notes: for pages that
// render it as a table of their own.
func TableCells(rows []Row) (header []string, body [][]string, right []bool, notes []string) {
	header, body = cells(rows, false)
	return header, body, rightAligned(header), rowNotes(rows)
}

// ColumnsNote is the legend of a run table with the metric columns a
// reader most often misreads (oracle metrics beside the strategy's own
// pick); the glossary has every column.
const ColumnsNote = "best_of_k / any_at_b: any sample or final candidate right (oracle); top1: the search's own pick; sample_accuracy: share of single samples right; all columns: docs/experiments.md#table-columns."

// oracleMetrics are the metric columns that bring ColumnsNote.
var oracleMetrics = map[string]bool{"best_of_k": true, "any_at_b": true, "top1": true, "sample_accuracy": true}

// TemperatureDefaultNote explains a run whose temperature was left to the
// model (reasoning models refuse any other).
const TemperatureDefaultNote = "temperature=default: no temperature was sent; the model sampled at its own default (OpenAI's and the simulator's is 1), on which the diversity of CoT-SC's chains and ToT's and MCTS's proposals and evaluations depends."

// modelDefaultTemperature reports whether a parameter summary leaves a
// temperature to the model.
func modelDefaultTemperature(params string) bool {
	return strings.Contains(params, "temperature=default")
}

// rowNotes are the footnotes of a run table: what "accuracy" is where it
// is not one verdict per item, and the temperature note.
func rowNotes(rows []Row) []string {
	var notes []string
	if slices.ContainsFunc(rows, func(r Row) bool { return r.RuleForgeable }) {
		notes = append(notes, ForgeableNote)
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return r.ScoreKind == ScoreMean }) {
		notes = append(notes, AccuracyMeanNote)
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return strings.HasPrefix(r.Strategy, "cotsc") }) {
		notes = append(notes, AccuracyVoteNote)
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return modelDefaultTemperature(r.Params) }) {
		notes = append(notes, TemperatureDefaultNote)
	}
	if slices.ContainsFunc(metricColumns(rows), func(c string) bool { return oracleMetrics[c] }) {
		notes = append(notes, ColumnsNote)
	}
	return notes
}

// What "accuracy" is for each kind of run.
const (
	AccuracyMeanNote = "accuracy of a run whose items score between 0 and 1 (io or cot with k>1: each item's score is the mean over its k samples): the mean of the item scores; its 95% CI is Student-t over the items (df = n-1), the item being the cluster of its samples."
	AccuracyVoteNote = "accuracy of cotsc: its majority vote's, one 0/1 verdict per item (Wilson)."
)

// intervalNotes say which interval the rows' CI column holds.
func intervalNotes(rows []Row) []string {
	var out []string
	if slices.ContainsFunc(rows, func(r Row) bool { return r.CI().Method == MethodWilson }) {
		out = append(out, "Wilson score interval over the n items of a run whose items score 0 or 1")
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return r.CI().Method == MethodItemsT }) {
		out = append(out, "Student-t over the n item scores of a run whose items score between 0 and 1")
	}
	return out
}

// writeNotes writes footnotes under a Markdown table.
func writeNotes(w io.Writer, notes []string) error {
	if len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, n := range notes {
		b.WriteString("- " + n + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// renderMarkdown renders a Markdown table with tablewriter; right marks the
// right-aligned columns.
func renderMarkdown(w io.Writer, header []string, body [][]string, right []bool) error {
	align := make([]tw.Align, len(header))
	for i := range header {
		align[i] = tw.AlignLeft
		if right[i] {
			align[i] = tw.AlignRight
		}
	}
	for _, line := range body {
		for i := range line {
			line[i] = strings.ReplaceAll(line[i], "|", `\|`)
		}
	}
	tb := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	tb.Header(hdr...)
	if err := tb.Bulk(body); err != nil {
		return err
	}
	return tb.Render()
}
