package view

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

// experiment is an experiment's page: its table with the paired columns
// against the file's baseline (as bench report --experiment prints it) and
// the frontier plot of accuracy against tokens per item, CoT-SC as its vote
// curve over k' (as bench plot --frontier draws it).
func (s *Server) experiment(ctx context.Context, r *http.Request) (page, error) {
	name := r.PathValue("name")
	runs, err := s.st.Runs(ctx, store.RunFilter{Experiment: name})
	if err != nil {
		return page{}, err
	}
	if len(runs) == 0 {
		return page{}, notFound(fmt.Sprintf("experiment %q: no runs", name))
	}
	groups, err := results.Groups(ctx, s.st, s.cat, runs, render.Level)
	if err != nil {
		return page{}, err
	}
	baseline := ""
	if spec := results.ExperimentBaseline(runs); spec != "" && len(groups) > 1 {
		// A baseline the file names but the runs do not hold leaves the
		// table unpaired, as bench report says with --baseline.
		if base, err := results.MatchBaseline(groups, spec); err == nil {
			if err := results.AddPaired(ctx, s.st, groups, base, render.Level); err != nil {
				return page{}, err
			}
			baseline = groups[base].Strategy + " " + groups[base].Params
		}
	}
	header, rows, right, notes := render.ExperimentTableCells(groups)
	table := experimentTableView{Header: header, Right: right, Notes: notes}
	var all []string
	for i, g := range groups {
		var ids []string
		for _, id := range g.RunIDs {
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		all = append(all, ids...)
		table.Rows = append(table.Rows, experimentRowView{Cells: rows[i], Runs: ids})
	}
	table.fold()
	compare := ""
	if len(all) >= 2 && len(all) <= MaxCompare {
		compare = "/compare?runs=" + strings.Join(all, ",")
	}
	svg, front, err := s.frontier(ctx, name, groups)
	if err != nil {
		return page{}, err
	}
	return page{name: "experiment.html", title: "experiment " + name, data: map[string]any{
		"Name": name, "Runs": len(runs), "Configs": len(groups), "Baseline": baseline,
		"Table": table, "Compare": compare, "Frontier": svg, "Front": render.Stretches(front),
	}}, nil
}

// experimentTableView is the experiment table as the page lays it out:
// one row a configuration, with links to its runs.
type experimentTableView struct {
	Header []string
	Right  []bool
	Rows   []experimentRowView
	Notes  []string
	// Shared are the columns every row has alike, "header value".
	Shared []string
}

// fold takes out of the table the columns that say nothing per row, so
// the rest fits the page: a text column with one value in every row (the
// task, model, rule, prompts all configurations share) goes to Shared as
// "header value", and a column empty in every row goes.
func (t *experimentTableView) fold() {
	if len(t.Rows) < 2 {
		return
	}
	var keep []int
	for j, h := range t.Header {
		v, same := t.Rows[0].Cells[j], true
		for _, r := range t.Rows[1:] {
			same = same && r.Cells[j] == v
		}
		switch {
		case same && v == "":
		case same && !t.Right[j]:
			t.Shared = append(t.Shared, h+" "+v)
		default:
			keep = append(keep, j)
		}
	}
	pick := func(s []string) []string {
		out := make([]string, len(keep))
		for i, j := range keep {
			out[i] = s[j]
		}
		return out
	}
	right := make([]bool, len(keep))
	for i, j := range keep {
		right[i] = t.Right[j]
	}
	t.Header, t.Right = pick(t.Header), right
	for i := range t.Rows {
		t.Rows[i].Cells = pick(t.Rows[i].Cells)
	}
}

type experimentRowView struct {
	Cells []string
	Runs  []string
}

// frontier draws the experiment's frontier plot; no plot (and no error)
// when the runs record no tokens.
func (s *Server) frontier(ctx context.Context, name string, groups []render.Group) (template.HTML, []render.FrontierPoint, error) {
	curves := make([][]render.CurvePoint, len(groups))
	for i, g := range groups {
		var err error
		if curves[i], err = results.GroupCurve(ctx, s.st, g); err != nil {
			return "", nil, err
		}
	}
	p, front, err := render.NewFrontierPlot(groups, curves, render.PlotOptions{X: "tokens", Y: "accuracy",
		Title: "experiment " + name, LogX: true})
	if err != nil {
		return "", nil, nil // nothing to draw, e.g. no tokens recorded
	}
	svg, err := inlineSVG(p, 16*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		return "", nil, err
	}
	return svg, front, nil
}
