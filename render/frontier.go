package render

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// CurvePoint is one k' of a CoT-SC configuration's vote curve (bench
// report --by k): tokens per item and the vote's expected accuracy.
type CurvePoint struct {
	K        int
	Tokens   float64
	Accuracy float64
}

// FrontierPoint is a point on the Pareto frontier: no other point is at
// most as costly and more accurate.
type FrontierPoint struct {
	Label string  `json:"label"`
	X     float64 `json:"x"`
	Y     float64 `json:"accuracy"`
}

// Frontier returns the Pareto frontier of points (cheaper first): each
// point more accurate than every cheaper or equally costly one.
func Frontier(pts []FrontierPoint) []FrontierPoint {
	s := slices.Clone(pts)
	slices.SortStableFunc(s, func(a, b FrontierPoint) int {
		switch {
		case a.X != b.X:
			if a.X < b.X {
				return -1
			}
			return 1
		case a.Y > b.Y:
			return -1
		case a.Y < b.Y:
			return 1
		}
		return 0
	})
	var out []FrontierPoint
	for _, p := range s {
		if len(out) == 0 || p.Y > out[len(out)-1].Y {
			out = append(out, p)
		}
	}
	return out
}

// NewFrontierPlot draws accuracy against tokens (or cost) per item: every
// configuration as a point with its interval, each CoT-SC configuration's
// vote curve over k' (curves[i] for groups[i], nil for none), and the
// Pareto frontier over all of them as a staircase. It returns the
// frontier's points too.
func NewFrontierPlot(groups []Group, curves [][]CurvePoint, o PlotOptions) (*plot.Plot, []FrontierPoint, error) {
	if o.X != "tokens" && o.X != "cost" {
		return nil, nil, fmt.Errorf("--frontier plots against tokens or cost per item, not %q", o.X)
	}
	o.Y = "accuracy"
	p, err := NewPlot(groups, o)
	if err != nil {
		return nil, nil, err
	}
	labels := Labels(groups)
	var cands []FrontierPoint
	for i, g := range groups {
		x, _, _ := xValue(g, o.X)
		cands = append(cands, FrontierPoint{Label: labels[i], X: x, Y: g.Accuracy})
		if i >= len(curves) || len(curves[i]) < 2 {
			continue
		}
		var line plotter.XYs
		for _, c := range curves[i] {
			cx := c.Tokens
			if o.X == "cost" && g.TokensPerItem > 0 {
				cx = g.CostPerItem * c.Tokens / g.TokensPerItem
			}
			line = append(line, plotter.XY{X: cx, Y: c.Accuracy})
			cands = append(cands, FrontierPoint{Label: fmt.Sprintf("%s at k'=%d", g.Strategy, c.K), X: cx, Y: c.Accuracy})
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, nil, err
		}
		l.LineStyle.Color = plotutil.Color(i)
		l.LineStyle.Width = vg.Points(1)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: vote over k' of its samples", labels[i]), l)
	}
	front := Frontier(cands)
	if err := addFrontierLine(p, front); err != nil {
		return nil, nil, err
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Title.Text = "Pareto frontier: " + p.Title.Text
	return p, front, nil
}

// addFrontierLine draws a frontier on p as a dashed staircase (each point's
// accuracy holds until the next point's budget), with its legend entry.
func addFrontierLine(p *plot.Plot, front []FrontierPoint) error {
	var stairs plotter.XYs
	for j, f := range front {
		if j > 0 {
			stairs = append(stairs, plotter.XY{X: f.X, Y: front[j-1].Y})
		}
		stairs = append(stairs, plotter.XY{X: f.X, Y: f.Y})
	}
	if len(stairs) == 0 {
		return nil
	}
	l, err := plotter.NewLine(stairs)
	if err != nil {
		return err
	}
	l.LineStyle.Color = color.Black
	l.LineStyle.Width = vg.Points(1.5)
	l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add("Pareto frontier (best accuracy at each budget)", l)
	return nil
}

// FrontierStretch is a run of consecutive frontier points: one point, or
// several of one vote curve (k' from one value to another).
type FrontierStretch struct {
	From, To FrontierPoint
	// Label names the configuration: the point's label, or for a stretch of
	// a vote curve "NAME, k'=A to k'=B".
	Label string
}

// Stretches folds consecutive points of one vote curve into one stretch.
func Stretches(front []FrontierPoint) []FrontierStretch {
	var out []FrontierStretch
	for i := 0; i < len(front); {
		j, name := i, curveName(front[i].Label)
		for j+1 < len(front) && name != "" && curveName(front[j+1].Label) == name {
			j++
		}
		st := FrontierStretch{From: front[i], To: front[j], Label: front[i].Label}
		if j > i {
			st.Label = name + ", " + strings.TrimPrefix(front[i].Label, name+" at ") + " to " + strings.TrimPrefix(front[j].Label, name+" at ")
		}
		out = append(out, st)
		i = j + 1
	}
	return out
}

// curveName is the configuration of a vote-curve point ("NAME at k'=5"),
// "" for other points.
func curveName(label string) string {
	name, _, ok := strings.Cut(label, " at k'=")
	if !ok {
		return ""
	}
	return name
}
