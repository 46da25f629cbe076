package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/store"
)

// runRow is one line of the runs page, from aggregates only.
type runRow struct {
	Run      store.Run
	Params   string
	Progress store.RunProgress
	Accuracy float64
	CI       render.Interval
	// Row is the report row (results.Row): scoring rule, prompt pack,
	// model parameters and reasoning tokens, as bench report shows them.
	Row render.Row
}

func (s *Server) runRow(ctx context.Context, r store.Run) (runRow, error) {
	p, err := s.st.Progress(ctx, r.ID)
	if err != nil {
		return runRow{}, err
	}
	row := runRow{Run: r, Params: s.cat.ParamSummary(r.Strategy, r.Params), Progress: p}
	if p.Done > 0 {
		row.Accuracy = p.Score / float64(p.Done)
	}
	if row.Row, _, err = results.Row(ctx, s.st, s.cat, r); err != nil {
		return runRow{}, err
	}
	row.CI = row.Row.CI() // by the items' score kind, as bench report's
	return row, nil
}

func (s *Server) runs(ctx context.Context, r *http.Request) (page, error) {
	runs, err := s.st.Runs(ctx, store.RunFilter{})
	if err != nil {
		return page{}, err
	}
	rows := make([]runRow, 0, len(runs))
	for i := len(runs) - 1; i >= 0; i-- { // newest first
		row, err := s.runRow(ctx, runs[i])
		if err != nil {
			return page{}, err
		}
		rows = append(rows, row)
	}
	return page{name: "runs.html", title: "runs", data: map[string]any{"Rows": rows, "Path": s.st.Path()}}, nil
}

// progress serves the JSON the runs page polls for running runs.
func (s *Server) progress(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, `{"error":"not a run id"}`, http.StatusNotFound)
		return
	}
	p, err := s.st.Progress(r.Context(), id)
	if err != nil {
		http.Error(w, fmt.Sprintf(`{"error":%q}`, err.Error()), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(p)
}

const pageSize = 50

func (s *Server) run(ctx context.Context, r *http.Request) (page, error) {
	run, err := s.runID(ctx, r)
	if err != nil {
		return page{}, err
	}
	q := store.ItemQuery{Filter: r.FormValue("filter"), Search: r.FormValue("q"), Limit: pageSize}
	if q.Filter != "" && !slices.Contains(store.ItemFilters, q.Filter) {
		return page{}, badRequest(fmt.Sprintf("filter %q: want one of %s", q.Filter, strings.Join(store.ItemFilters, ", ")))
	}
	pg, _ := strconv.Atoi(r.FormValue("page"))
	pg = max(pg, 1)
	q.Offset = (pg - 1) * pageSize
	items, total, err := s.st.ItemPage(ctx, run.ID, q)
	if err != nil {
		return page{}, err
	}
	rr, sum, err := results.Row(ctx, s.st, s.cat, run)
	if err != nil {
		return page{}, err
	}
	var table, exp tableGrid
	table.Header, table.Rows, _, table.Notes = render.TableCells([]render.Row{rr})
	groups := render.Pivot([]render.Row{rr}, render.Level)
	exp.Header, exp.Rows, _, exp.Notes = render.ExperimentTableCells(groups)
	plots := s.plots(groups, sum)
	tools, err := results.ToolRows(ctx, s.st, []store.Run{run})
	if err != nil {
		return page{}, err
	}
	pages := int(math.Ceil(float64(total) / pageSize))
	link := func(p int, filter string) string {
		v := url.Values{}
		if filter != "" {
			v.Set("filter", filter)
		}
		if q.Search != "" {
			v.Set("q", q.Search)
		}
		if p > 1 {
			v.Set("page", strconv.Itoa(p))
		}
		if len(v) == 0 {
			return fmt.Sprintf("/runs/%d", run.ID)
		}
		return fmt.Sprintf("/runs/%d?%s", run.ID, v.Encode())
	}
	var filters []map[string]any
	for _, f := range append([]string{""}, store.ItemFilters...) {
		name := f
		if f == "" {
			name = "all"
		}
		filters = append(filters, map[string]any{"Name": name, "Link": link(1, f), "On": f == q.Filter})
	}
	var prev, next string
	if pg > 1 {
		prev = link(pg-1, q.Filter)
	}
	if pg < pages {
		next = link(pg+1, q.Filter)
	}
	return page{name: "run.html", title: fmt.Sprintf("run %d", run.ID), data: map[string]any{
		"Run": run, "Params": s.cat.ParamSummary(run.Strategy, run.Params), "Sum": sum, "CI": rr.CI(),
		"Table": table, "ExpTable": exp, "Plots": plots, "Tools": tools, "Items": items, "Total": total,
		"Page": pg, "Pages": pages, "Prev": prev, "Next": next, "Filters": filters, "Query": q,
	}}, nil
}

// plots renders bench plot's SVGs for one run: accuracy against tokens, and
// the per-trial curve when the run has one.
func (s *Server) plots(groups []render.Group, sum runinfo.Summary) []template.HTML {
	var out []template.HTML
	opts := []render.PlotOptions{{X: "tokens", Y: "accuracy", Title: fmt.Sprintf("run %d", sum.RunID)}}
	if len(sum.PerTrial) > 0 || len(sum.PerIteration) > 0 {
		opts = append(opts, render.PlotOptions{X: "tokens", Y: render.PlotPerTrial, Title: fmt.Sprintf("run %d", sum.RunID)})
	}
	for _, o := range opts {
		p, err := render.NewPlot(groups, o)
		if err != nil {
			continue // e.g. no per-trial series: nothing to draw
		}
		svg, err := inlineSVG(p, 12*vg.Centimeter, 8*vg.Centimeter)
		if err != nil {
			continue
		}
		out = append(out, svg)
	}
	return out
}

// inlineSVG renders a plot as SVG to put in a page: our own renderer's
// output, not model text, without its XML prolog.
func inlineSVG(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	var b bytes.Buffer
	if err := render.WritePlot(&b, p, "svg", w, h); err != nil {
		return "", err
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i > 0 {
		svg = svg[i:]
	}
	return template.HTML(svg), nil
}

// compareRow is one item across the compared runs.
type compareRow struct {
	Index    int
	Input    string
	Gold     string
	Verdicts []*store.Verdict // nil: the run lacks the item
	Answers  []string         // the answer the scorer extracted from each run's output
	Disagree bool
}

func (s *Server) compare(ctx context.Context, r *http.Request) (page, error) {
	var asked []int64
	for _, part := range strings.Split(r.FormValue("runs"), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return page{}, badRequest(fmt.Sprintf("runs=%.80q: want comma-separated run ids, e.g. /compare?runs=3,4", r.FormValue("runs")))
		}
		if slices.Contains(asked, id) {
			return page{}, badRequest(fmt.Sprintf("run %d is given twice: give each run once", id))
		}
		if asked = append(asked, id); len(asked) > MaxCompare {
			return page{}, badRequest(fmt.Sprintf("more than %d runs: compare at most %d at once", MaxCompare, MaxCompare))
		}
	}
	var runs []store.Run
	for _, id := range asked {
		run, err := s.st.GetRun(ctx, id)
		if err != nil {
			return page{}, err
		}
		runs = append(runs, run)
	}
	if len(runs) < 2 {
		return page{}, badRequest("compare needs two or more runs, e.g. /compare?runs=3,4")
	}
	for _, run := range runs[1:] {
		if run.Task != runs[0].Task {
			return page{}, badRequest(fmt.Sprintf("run %d is on %s and run %d on %s: compare runs of the same task", runs[0].ID, runs[0].Task, run.ID, run.Task))
		}
	}
	all := make([]map[int]store.Verdict, len(runs))
	idx := map[int]bool{}
	heads := make([]runRow, len(runs))
	for i, run := range runs {
		v, err := s.st.Verdicts(ctx, run.ID)
		if err != nil {
			return page{}, err
		}
		all[i] = v
		for k := range v {
			idx[k] = true
		}
		if heads[i], err = s.runRow(ctx, run); err != nil {
			return page{}, err
		}
	}
	onlyDis := r.FormValue("all") == ""
	var rows []compareRow
	disagree := 0
	for _, k := range slices.Sorted(maps.Keys(idx)) {
		row := compareRow{Index: k, Verdicts: make([]*store.Verdict, len(runs))}
		// Paired by score, not by verdict: an io k=10 item right 4 times
		// in 10 with its first sample wrong, and one right 2 times with the
		// first right, differ though their verdicts may agree.
		var seen []float64
		for i := range runs {
			if v, ok := all[i][k]; ok {
				row.Verdicts[i] = &v
				row.Input = v.Input
				seen = append(seen, v.Score)
			}
		}
		row.Disagree = len(seen) < len(runs) || slices.ContainsFunc(seen, func(x float64) bool { return x != seen[0] })
		if row.Disagree {
			disagree++
		}
		if onlyDis && !row.Disagree {
			continue
		}
		rows = append(rows, row)
	}
	total := len(rows)
	pg, _ := strconv.Atoi(r.FormValue("page"))
	pg = max(pg, 1)
	pages := max(1, int(math.Ceil(float64(total)/pageSize)))
	lo, hi := min((pg-1)*pageSize, total), min(pg*pageSize, total)
	// Gold and extracted answers for the rows shown, from each item's
	// full output (the verdicts hold only its start).
	answers := make([]*results.Answers, len(runs))
	for i, run := range runs {
		answers[i] = results.RunAnswers(s.cat, run)
	}
	for j := lo; j < hi; j++ {
		row := &rows[j]
		row.Gold = answers[0].Gold(row.Index)
		row.Answers = make([]string, len(runs))
		for i, run := range runs {
			if row.Verdicts[i] == nil {
				continue
			}
			it, err := s.st.GetItem(ctx, run.ID, row.Index)
			if err != nil {
				return page{}, err
			}
			row.Answers[i] = answers[i].Extracted(row.Index, it.Output)
		}
	}
	paired, err := s.pairedTable(ctx, runs)
	if err != nil {
		return page{}, err
	}
	ids := make([]string, len(runs))
	for i, run := range runs {
		ids[i] = strconv.FormatInt(run.ID, 10)
	}
	link := func(p int, all bool) string {
		v := url.Values{"runs": {strings.Join(ids, ",")}}
		if all {
			v.Set("all", "1")
		}
		if p > 1 {
			v.Set("page", strconv.Itoa(p))
		}
		return "/compare?" + strings.ReplaceAll(v.Encode(), "%2C", ",")
	}
	var prev, next string
	if pg > 1 {
		prev = link(pg-1, !onlyDis)
	}
	if pg < pages {
		next = link(pg+1, !onlyDis)
	}
	return page{name: "compare.html", title: "compare runs " + strings.Join(ids, ", "), data: map[string]any{
		"MixedRules": mixedRules(heads), "Runs": heads, "Rows": rows[lo:hi], "Disagree": disagree, "Paired": paired, "Items": len(idx), "OnlyDisagree": onlyDis,
		"AllLink": link(1, true), "DisLink": link(1, false), "Page": pg, "Pages": pages, "Prev": prev, "Next": next,
	}}, nil
}

// pairedTable is bench compare's table for the runs, the first the
// baseline: paired differences, their intervals, McNemar or paired t, Holm.
func (s *Server) pairedTable(ctx context.Context, runs []store.Run) (*pairedView, error) {
	groups, err := results.Groups(ctx, s.st, s.cat, runs, render.Level)
	if err != nil {
		return nil, err
	}
	if len(groups) < 2 {
		return nil, nil
	}
	cs, err := results.Compare(ctx, s.st, groups, results.GroupOfRun(groups, runs[0].ID), render.Level)
	if err != nil {
		return nil, err
	}
	var v pairedView
	v.Header, v.Rows, v.Notes = render.ComparisonTable(cs)
	return &v, nil
}

// pairedView is the comparison table as the compare page lays it out.
type pairedView struct {
	Header []string
	Rows   [][]string
	Notes  []string
}

// mixedRules is the compare page's warning when the runs were scored by
// different rules (results.MixedRules).
func mixedRules(heads []runRow) string {
	rows := make([]render.Row, len(heads))
	for i, h := range heads {
		rows[i] = h.Row
	}
	return results.MixedRules(rows)
}

// tableGrid is a report table as the page draws it, from the report's own
// cells: real HTML rows, not Markdown pipes in a <pre> that wrap at 1400
// px.
type tableGrid struct {
	Header []string
	Rows   [][]string
	Notes  []string // lines under the table (footnotes)
}
