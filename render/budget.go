package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BudgetRow is one point of `bench report --by budget`: a run (or, for
// CoT-SC and best-of-N, a run's first-N' view) with its accuracy and what
// it spent per problem, optionally within one level of the problems.
type BudgetRow struct {
	// Level names the items' level ("level=3", "difficulty=5"); "" when the
	// table is not split.
	Level     string `json:"level,omitempty"`
	RunID     int64  `json:"run_id"`
	Task      string `json:"task"`
	Strategy  string `json:"strategy"`
	Params    string `json:"params"`
	Model     string `json:"model"`
	Simulated bool   `json:"simulated"`
	Status    string `json:"status"`
	// Select is how N' samples become one answer: "vote" (majority, CoT-SC's
	// rule), "best" (the highest verifier score), "weighted" (verifier scores
	// summed per answer); "" for a run as it ran.
	Select string `json:"select,omitempty"`
	// K is N' (0 for a run as it ran); KOf the largest N of the run's items.
	K     int `json:"k,omitempty"`
	KOf   int `json:"k_of,omitempty"`
	Items int `json:"items"` // items counted (for N', those with at least N' samples)
	// Accuracy is the share right: for N', expected over N'-subsets of each
	// item's samples.
	Accuracy float64 `json:"accuracy"`
	// GeneratedTokens are completion tokens per problem of every call but the
	// verifier's (and a judged task's judge); VerifierTokens the prompt and
	// completion tokens of verifier calls. For N' < N both are N'/N of the
	// item's (Estimated).
	GeneratedTokens float64 `json:"generated_tokens"`
	VerifierTokens  float64 `json:"verifier_tokens"`
	Estimated       bool    `json:"estimated,omitempty"`
	// Exact is false when some item's subsets were sampled, not enumerated;
	// MCSE is then the Monte Carlo standard error of Accuracy.
	Exact bool    `json:"exact"`
	MCSE  float64 `json:"mc_se,omitempty"`
}

// Budget is the budget on the frontier's x axis: generated plus verifier
// tokens per problem, or generated tokens alone.
func (r BudgetRow) Budget(axis string) float64 {
	if axis == BudgetGenerated {
		return r.GeneratedTokens
	}
	return r.GeneratedTokens + r.VerifierTokens
}

// Name names the row's configuration: "cotsc k=8 #3 vote" (the curve a
// N' row belongs to) or "tot ... #5".
func (r BudgetRow) Name() string {
	s := r.Strategy
	if r.Params != "" {
		s += " " + r.Params
	}
	s += fmt.Sprintf(" #%d", r.RunID)
	if r.Select != "" {
		s += " " + r.Select
	}
	return s
}

// Budget axes of the frontier plot.
const (
	BudgetTotal     = "tokens"    // generated + verifier tokens per problem
	BudgetGenerated = "generated" // generated tokens per problem
)

// BudgetAxes lists the x axes a budget frontier may use.
var BudgetAxes = []string{BudgetTotal, BudgetGenerated}

// WriteBudget renders budget rows as md, csv or json; notes go under a
// Markdown table.
func WriteBudget(w io.Writer, format string, rows []BudgetRow, notes []string) error {
	split := slices.ContainsFunc(rows, func(r BudgetRow) bool { return r.Level != "" })
	header := []string{"run", "task", "strategy", "params", "model", "select", "N'", "items", "accuracy", "mc_se",
		"generated tokens/problem", "verifier tokens/problem"}
	if split {
		header = append([]string{"level"}, header...)
	}
	var body [][]string
	for _, r := range rows {
		k, se := "", "exact"
		if r.K > 0 {
			k = fmt.Sprintf("%d/%d", r.K, r.KOf)
		}
		switch {
		case r.K == 0:
			se = "" // a run's own verdicts: nothing estimated
		case !r.Exact:
			se = fmt.Sprintf("%.4f", r.MCSE)
		}
		gen := fmt.Sprintf("%.0f", r.GeneratedTokens)
		if r.Estimated {
			gen += "*"
		}
		line := []string{fmt.Sprint(r.RunID), r.Task, strategyText(r.Strategy, r.Status), r.Params,
			ModelText(r.Model, r.Simulated), r.Select, k, fmt.Sprint(r.Items), fmt.Sprintf("%.3f", r.Accuracy), se,
			gen, fmt.Sprintf("%.0f", r.VerifierTokens)}
		if split {
			line = append([]string{r.Level}, line...)
		}
		body = append(body, line)
	}
	right := rightAligned(header)
	for i, h := range header {
		if h == "level" || h == "select" {
			right[i] = false
		}
	}
	if rows == nil {
		rows = []BudgetRow{}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), right: right, notes: notes, json: rows, flag: "--by budget"}, nil)
}

// BudgetLevels returns the levels of rows in table order: numerically
// where the values are numbers ("level=2" before "level=10"), else as
// text.
func BudgetLevels(rows []BudgetRow) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.Level) {
			out = append(out, r.Level)
		}
	}
	slices.SortStableFunc(out, CompareLevels)
	return out
}

// CompareLevels orders "key=value" levels by key, then by value, numbers
// numerically and before text.
func CompareLevels(a, b string) int {
	ka, va, _ := strings.Cut(a, "=")
	kb, vb, _ := strings.Cut(b, "=")
	if c := cmp.Compare(ka, kb); c != 0 {
		return c
	}
	fa, ea := strconv.ParseFloat(va, 64)
	fb, eb := strconv.ParseFloat(vb, 64)
	switch {
	case ea == nil && eb == nil:
		return cmp.Compare(fa, fb)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return cmp.Compare(va, vb)
}

// BudgetFrontier returns the Pareto frontier of budget rows on axis, each
// point labelled by its configuration ("NAME at k'=N" for a N' row, as
// Stretches folds them).
func BudgetFrontier(rows []BudgetRow, axis string) []FrontierPoint {
	var pts []FrontierPoint
	for _, r := range rows {
		if r.Items == 0 {
			continue
		}
		label := r.Name()
		if r.K > 0 {
			label = fmt.Sprintf("%s at k'=%d", label, r.K)
		}
		pts = append(pts, FrontierPoint{Label: label, X: r.Budget(axis), Y: r.Accuracy})
	}
	return Frontier(pts)
}

// NewBudgetFrontierPlot draws accuracy against the budget per problem for
// rows (one level's): each run as a point, each N' curve (a run's vote,
// best or weighted selection over N' of its samples) as a line, and the
// Pareto frontier over all of them as a staircase.
func NewBudgetFrontierPlot(rows []BudgetRow, axis, title string, logX bool) (*plot.Plot, []FrontierPoint, error) {
	if !slices.Contains(BudgetAxes, axis) {
		return nil, nil, fmt.Errorf("--x %q: a budget frontier plots against %s", axis, strings.Join(BudgetAxes, " or "))
	}
	type series struct {
		name string
		pts  plotter.XYs
	}
	var all []series
	var every plotter.XYs
	for _, r := range rows {
		if r.Items == 0 {
			continue
		}
		xy := plotter.XY{X: r.Budget(axis), Y: r.Accuracy}
		if logX && xy.X <= 0 {
			return nil, nil, fmt.Errorf("--logx: %s spent %g tokens per problem; a log axis needs positive values", r.Name(), xy.X)
		}
		every = append(every, xy)
		name := r.Name()
		i := slices.IndexFunc(all, func(s series) bool { return s.name == name })
		if i < 0 {
			all = append(all, series{name: name})
			i = len(all) - 1
		}
		all[i].pts = append(all[i].pts, xy)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("nothing to plot: no run has items here")
	}
	p := plot.New()
	xName := "generated + verifier tokens per problem"
	if axis == BudgetGenerated {
		xName = "generated tokens per problem"
	}
	p.Title.Text = "Pareto frontier: accuracy vs " + xName + ": " + title
	if slices.ContainsFunc(rows, func(r BudgetRow) bool { return r.Simulated }) {
		p.Title.Text += " (simulated)"
	}
	p.X.Label.Text = xName
	p.Y.Label.Text = "accuracy"
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = unitTicks{}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, s := range all {
		slices.SortStableFunc(s.pts, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		if len(s.pts) > 1 {
			l, sc, err := plotter.NewLinePoints(s.pts)
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle.Color = plotutil.Color(i)
			l.LineStyle.Width = vg.Points(1)
			sc.GlyphStyle.Color = plotutil.Color(i)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			sc.GlyphStyle.Radius = vg.Points(2)
			p.Add(l, sc)
			p.Legend.Add(s.name+" over N'", l, sc)
			continue
		}
		sc, err := plotter.NewScatter(s.pts)
		if err != nil {
			return nil, nil, err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	front := BudgetFrontier(rows, axis)
	if err := addFrontierLine(p, front); err != nil {
		return nil, nil, err
	}
	padX(p, every, logX)
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	return p, front, nil
}
