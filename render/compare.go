package render

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/stats"
)

// Power settings of the minimum detectable differences printed under
// comparison tables.
const (
	MDDAlpha = 0.05
	MDDPower = 0.8
)

// Comparison is one configuration against the baseline over the items both
// answered (bench compare, the paired columns of experiment tables, the
// viewer's compare page).
type Comparison struct {
	Run          int64   `json:"run"`      // the configuration's first run
	Runs         []int64 `json:"runs"`     // all its runs, pooled per item
	Baseline     int64   `json:"baseline"` // the baseline's first run
	BaselineRuns []int64 `json:"baseline_runs"`
	Label        string  `json:"label"`
	BaseLabel    string  `json:"baseline_label"`
	stats.Comparison
	PHolm float64 `json:"-"` // Holm-adjusted over the table's comparisons; NaN with P
	Level float64 `json:"-"`
	// Metric is the item metric compared ("" for the score, accuracy).
	Metric string `json:"-"`
	// Wins and Losses are what the run gained and lost against the
	// baseline in items' worth: the sums of the per-item differences where
	// it scored higher, and where lower (results.CompareMetric). With 0/1
	// scores they are RunOnly and BaselineOnly; with scores in between
	// they still add up to the difference (Wins − Losses = N ×
	// Difference), where counts of the items scored higher and lower need
	// not (io k=100 against a vote: higher on 56 items, lower on 44, and
	// 0.258 lower on the mean).
	Wins, Losses float64 `json:"-"`
}

// MarshalJSON writes the shape bench compare documents; undefined p-values
// and infinite bounds are null.
func (c Comparison) MarshalJSON() ([]byte, error) {
	mdd, ok := c.MDD(MDDAlpha, MDDPower)
	return json.Marshal(struct {
		Run              int64       `json:"run"`
		Runs             []int64     `json:"runs"`
		Baseline         int64       `json:"baseline"`
		BaselineRuns     []int64     `json:"baseline_runs"`
		Label            string      `json:"label"`
		BaselineLabel    string      `json:"baseline_label"`
		N                int         `json:"n"`
		Accuracy         float64     `json:"accuracy"`
		BaselineAccuracy float64     `json:"baseline_accuracy"`
		Difference       float64     `json:"difference"`
		CI               [2]*float64 `json:"ci"`
		CIMethod         string      `json:"ci_method"`
		Level            float64     `json:"level"`
		PValue           *float64    `json:"p_value"`
		Test             string      `json:"test"`
		PHolm            *float64    `json:"p_holm"`
		RunOnly          int         `json:"run_only"`
		BaselineOnly     int         `json:"baseline_only"`
		Wins             float64     `json:"wins"`
		Losses           float64     `json:"losses"`
		MDD              *float64    `json:"mdd"`
	}{c.Run, c.Runs, c.Baseline, c.BaselineRuns, c.Label, c.BaseLabel, c.N, Round(c.Accuracy), Round(c.BaselineAccuracy),
		Round(c.Difference), [2]*float64{finite(c.Low), finite(c.High)}, c.CIMethod, c.Level, finite(c.P), c.Test, finite(c.PHolm),
		c.RunOnly, c.BaselineOnly, Round(c.Wins), Round(c.Losses), finiteIf(mdd, ok)})
}

// Round drops float noise (0.16799999999999982 → 0.168) from figures in
// JSON: 12 significant digits.
func Round(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return r
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := Round(v)
	return &r
}

func finiteIf(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return finite(v)
}

// HolmAdjust fills in PHolm over the comparisons with a defined p-value.
func HolmAdjust(cs []Comparison) {
	var ps []float64
	var at []int
	for i := range cs {
		cs[i].PHolm = math.NaN()
		if !math.IsNaN(cs[i].P) {
			ps = append(ps, cs[i].P)
			at = append(at, i)
		}
	}
	for j, p := range stats.Holm(ps) {
		cs[at[j]].PHolm = p
	}
}

// CompareFormats lists the formats WriteComparisons accepts.
var CompareFormats = []string{"md", "csv", "latex", "json"}

func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

func formatDiffCI(c Comparison) string {
	if math.IsInf(c.Low, 0) || math.IsInf(c.High, 0) {
		return "n/a"
	}
	return fmt.Sprintf("[%+.3f, %+.3f]", noNegZero(c.Low), noNegZero(c.High))
}

// noNegZero rounds to 3 decimals as printed, so that -0.0000001 prints as
// +0.000, not -0.000.
func noNegZero(v float64) float64 {
	if r := math.Round(v*1000) / 1000; r != 0 {
		return v
	}
	return 0
}

// shortMethod names a comparison's interval and test in one cell mark.
func shortMethod(c Comparison) string {
	if c.Test == stats.NameMcNemar {
		return "N"
	}
	return "T"
}

// ComparisonTable is the comparison table as cells, with its notes, for
// pages that lay it out themselves (bench view).
func ComparisonTable(cs []Comparison) (header []string, rows [][]string, notes []string) {
	header, rows = compareCells(cs)
	return header, rows, CompareNotes(cs)
}

// compareCells lays out the comparison table.
func compareCells(cs []Comparison) ([]string, [][]string) {
	pct := strconv.FormatFloat(levelOf(cs)*100, 'g', -1, 64)
	what, baseWhat := "accuracy", "baseline acc."
	if len(cs) > 0 && cs[0].Metric != "" {
		what, baseWhat = cs[0].Metric, "baseline "+cs[0].Metric
	}
	header := []string{"run", "configuration", "baseline", "n", what, baseWhat, "difference", pct + "% CI (paired)",
		"p", "p (Holm)", "wins", "losses"}
	var body [][]string
	for _, c := range cs {
		wins, losses := c.WinsText()
		body = append(body, []string{runsText(c.Runs), c.Label, runsText(c.BaselineRuns), strconv.Itoa(c.N),
			fmt.Sprintf("%.3f", c.Accuracy), fmt.Sprintf("%.3f", c.BaselineAccuracy), fmt.Sprintf("%+.3f", noNegZero(c.Difference)),
			formatDiffCI(c) + " " + shortMethod(c), formatP(c.P), formatP(c.PHolm), wins, losses})
	}
	return header, body
}

// WinsText prints Wins and Losses: whole items for 0/1 scores (McNemar),
// else items' worth to one decimal.
func (c Comparison) WinsText() (wins, losses string) {
	if c.Test == stats.NameMcNemar {
		return strconv.Itoa(c.RunOnly), strconv.Itoa(c.BaselineOnly)
	}
	return fmt.Sprintf("%.1f", c.Wins), fmt.Sprintf("%.1f", c.Losses)
}

func levelOf(cs []Comparison) float64 {
	for _, c := range cs {
		if c.Level > 0 {
			return c.Level
		}
	}
	return Level
}

func runsText(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, "+")
}

// CompareNotes explain the marks of a comparison table and give each
// comparison's minimum detectable difference at its n.
func CompareNotes(cs []Comparison) []string {
	var notes []string
	var binary, cont bool
	for _, c := range cs {
		binary = binary || c.Test == stats.NameMcNemar
		cont = cont || c.Test != stats.NameMcNemar
	}
	if binary {
		notes = append(notes, "N: Newcombe's hybrid score interval for a paired difference (Newcombe 1998, method 10); p: exact McNemar test (two-sided binomial test on the discordant items).")
	}
	if cont {
		notes = append(notes, "T: paired t interval and test on per-item differences; a configuration with several runs is pooled per item (the item's mean over its runs, Miller 2024), so items are the clusters.")
	}
	notes = append(notes, fmt.Sprintf("p (Holm): adjusted by Holm's method over the %d comparisons of this table.", len(cs)))
	notes = append(notes, winsNote(binary, cont))
	var mdd []string
	for _, c := range cs {
		if d, ok := c.MDD(MDDAlpha, MDDPower); ok {
			mdd = append(mdd, fmt.Sprintf("%s %.3f", c.Label, d))
		} else {
			mdd = append(mdd, c.Label+" none (too few discordant items)")
		}
	}
	notes = append(notes, fmt.Sprintf("Minimum detectable difference at these n (alpha %g, power %g; Connor 1987 with the observed discordant share for 0/1 scores, normal approximation with the observed spread otherwise): %s.",
		MDDAlpha, MDDPower, strings.Join(mdd, "; ")))
	return notes
}

// winsNote says what the wins and losses columns hold: with 0/1 scores the
// discordant items; with scores in between (a mean over samples, pooled
// runs) not the counts of items scored higher and lower, which can go
// against the difference, but the score gained and lost.
func winsNote(binary, cont bool) string {
	s := "wins / losses: "
	if binary {
		s += "the items only it, or only the baseline, got right (N)"
	}
	if binary && cont {
		s += "; "
	}
	if cont {
		s += "what it gained and lost against the baseline in items' worth: the sums of the per-item score differences where it scored higher, and where lower (T: scores between 0 and 1, or means over runs), so wins - losses = n * difference"
	}
	return s + "."
}

// WriteComparisons renders a comparison table.
func WriteComparisons(w io.Writer, format string, cs []Comparison) error {
	header, body := compareCells(cs)
	if cs == nil {
		cs = []Comparison{}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), notes: CompareNotes(cs),
		caption: "paired comparisons against the baseline", csv: comparisonsCSV(cs), json: map[string][]Comparison{"comparisons": cs}}, nil)
}

// comparisonsCSV is the comparison table as CSV: every figure in its own
// column, unrounded for display.
func comparisonsCSV(cs []Comparison) [][]string {
	out := [][]string{{"run", "runs", "label", "baseline", "baseline_runs", "n", "accuracy", "baseline_accuracy", "difference",
		"ci_low", "ci_high", "ci_method", "level", "p_value", "test", "p_holm", "run_only", "baseline_only", "mdd", "wins", "losses"}}
	for _, c := range cs {
		mdd, ok := c.MDD(MDDAlpha, MDDPower)
		out = append(out, []string{strconv.FormatInt(c.Run, 10), runsText(c.Runs), c.Label, strconv.FormatInt(c.Baseline, 10),
			runsText(c.BaselineRuns), strconv.Itoa(c.N), ftoa(Round(c.Accuracy)), ftoa(Round(c.BaselineAccuracy)), ftoa(Round(c.Difference)),
			numCell(c.Low, true), numCell(c.High, true), c.CIMethod, ftoa(c.Level), numCell(c.P, true), c.Test, numCell(c.PHolm, true),
			strconv.Itoa(c.RunOnly), strconv.Itoa(c.BaselineOnly), numCell(mdd, ok), ftoa(Round(c.Wins)), ftoa(Round(c.Losses))})
	}
	return out
}

func numCell(v float64, ok bool) string {
	if p := finiteIf(v, ok); p != nil {
		return ftoa(*p)
	}
	return ""
}

// countMetrics are the metrics that count things per item (a run's figure
// is their mean): shown as numbers of things, not as three-decimal rates.
var countMetrics = map[string]bool{"iterations": true, "trials": true, "states": true, "nodes": true, "steps": true,
	"propose_calls": true, "check_calls": true, "cache_hits": true, "reflections": true, "attempts": true, "executions": true,
	"tool_failures": true} // a run's count (runinfo.Summary.ToolFailures)

// MetricText formats a metric's value for a table: a count with at most two
// decimals and no trailing zeros ("2", "78.5", "2.25"), any other metric
// (a rate, a score) with three decimals.
func MetricText(name string, v float64) string {
	if countMetrics[name] {
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	s := fmt.Sprintf("%.3f", v)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}
