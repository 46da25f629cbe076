package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotAxes lists the cost measures a plot's x axis may show.
var PlotAxes = []string{"tokens", "calls", "cost", "wall"}

// PlotPerTrial is the y of per-trial plots (Reflexion trials, Self-Refine
// iterations).
const PlotPerTrial = "per_trial"

// PlotOptions say what to draw.
type PlotOptions struct {
	X     string // one of PlotAxes (accuracy plots)
	Y     string // "accuracy" (with intervals), a metric name, or PlotPerTrial
	Title string // names the experiment or selection
	LogX  bool
}

func xValue(g Group, axis string) (float64, string, error) {
	switch axis {
	case "tokens":
		return g.TokensPerItem, "tokens per item", nil
	case "calls":
		return g.CallsPerItem, "calls per item", nil
	case "cost":
		return g.CostPerItem, "cost per item ($)", nil
	case "wall":
		return g.WallSeconds, "wall time per run (s)", nil
	}
	return 0, "", fmt.Errorf("--x %q: want one of %s", axis, strings.Join(PlotAxes, ", "))
}

func simSuffix(groups []Group) string {
	if AnySimulated(groups) {
		return " (simulated)"
	}
	return ""
}

// NewPlot draws groups: for Y "accuracy", one labelled point per
// configuration at (X, accuracy) with its interval as a vertical bar; for
// another metric, the points without bars; for PlotPerTrial, one line per
// configuration through its per-trial accuracies.
func NewPlot(groups []Group, o PlotOptions) (*plot.Plot, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("nothing to plot: no runs selected")
	}
	if o.Y == "" {
		o.Y = "accuracy"
	}
	if o.Y == PlotPerTrial {
		return trialPlot(groups, o)
	}
	p := plot.New()
	labels := Labels(groups)
	pts := make(plotter.XYs, 0, len(groups))
	var errs plotter.YErrors
	var names []string
	var xLabel string
	for i, g := range groups {
		x, label, err := xValue(g, o.X)
		if err != nil {
			return nil, err
		}
		xLabel = label
		y := g.Accuracy
		if o.Y != "accuracy" {
			v, ok := g.Metrics[o.Y]
			if !ok {
				continue
			}
			y = v
		}
		if o.LogX && x <= 0 {
			return nil, fmt.Errorf("--logx: %s has %s = %g; a log axis needs positive values", labels[i], o.X, x)
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
		errs = append(errs, struct{ Low, High float64 }{y - g.CI.Low, g.CI.High - y})
		names = append(names, labels[i])
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("no configuration reports metric %q", o.Y)
	}
	yTitle := metricTitle(o.Y)
	yName := yTitle
	if o.Y == "accuracy" {
		yName = fmt.Sprintf("accuracy (bars: %g%% CI)", Level*100)
	}
	p.Title.Text = fmt.Sprintf("%s vs %s: %s%s", yTitle, xLabel, o.Title, simSuffix(groups))
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yName
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = unitTicks{}
	if o.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i := range pts {
		one := plotter.XYs{pts[i]}
		if o.Y == "accuracy" {
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{one, plotter.YErrors{errs[i]}})
			if err != nil {
				return nil, err
			}
			bars.LineStyle.Color = plotutil.Color(i)
			bars.LineStyle.Width = vg.Points(1)
			p.Add(bars)
		}
		sc, err := plotter.NewScatter(one)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3.5)
		p.Add(sc)
	}
	p.Add(newPointLabels(placeLabels(pts, o.LogX), names))
	padX(p, pts, o.LogX)
	return p, nil
}

// pointLabels writes each point's label beside it, kept inside the data
// area: to the point's left when it would run past the right edge (the
// costliest point's), below it when it would run into the title.
type pointLabels struct {
	xys   plotter.XYs
	texts []string
	style text.Style
}

func newPointLabels(xys plotter.XYs, texts []string) *pointLabels {
	return &pointLabels{xys: xys, texts: texts, style: text.Style{
		Font: font.From(plotter.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler,
	}}
}

// labelGap is the distance between a point and its label.
var labelGap = vg.Points(6)

func (l *pointLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ext := l.style.FontExtents()
	for i, xy := range l.xys {
		w := l.style.Width(l.texts[i])
		x, y := trX(xy.X)+labelGap, trY(xy.Y)+vg.Points(2)
		if x+w > c.Max.X {
			x = trX(xy.X) - labelGap - w
		}
		x = max(c.Min.X, min(x, c.Max.X-w))
		if y+ext.Ascent > c.Max.Y {
			y = trY(xy.Y) - vg.Points(4) - ext.Ascent
		}
		y = max(c.Min.Y+ext.Descent, min(y, c.Max.Y-ext.Ascent))
		c.FillText(l.style, vg.Point{X: x, Y: y}, l.texts[i])
	}
}

// DataRange is the points' range, so the labels move no axis.
func (l *pointLabels) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}

// placeLabels returns where to put each point's label: at the point, or
// moved up or down in steps when it would overlap a label placed before
// (points with nearly the same cost and accuracy). Overlap is judged in
// axis fractions: x within 12% of the range, y within 0.045.
func placeLabels(pts plotter.XYs, logX bool) plotter.XYs {
	nx := func(x float64) float64 {
		if logX {
			return math.Log10(math.Max(x, 1e-300))
		}
		return x
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		lo, hi = math.Min(lo, nx(pt.X)), math.Max(hi, nx(pt.X))
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	out := make(plotter.XYs, 0, len(pts))
	for _, pt := range pts {
		y := pt.Y
		for step := 0; step < 20; step++ {
			dy := 0.05 * float64((step+1)/2)
			if step%2 == 1 {
				dy = -dy
			}
			cand := math.Min(0.97, math.Max(0.01, pt.Y+dy))
			if !slices.ContainsFunc(out, func(q plotter.XY) bool {
				return math.Abs(nx(q.X)-nx(pt.X))/span < 0.12 && math.Abs(q.Y-cand) < 0.045
			}) {
				y = cand
				break
			}
		}
		out = append(out, plotter.XY{X: pt.X, Y: y})
	}
	return out
}

// padX widens the x range so points and their labels are not on the frame.
func padX(p *plot.Plot, pts plotter.XYs, logX bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
	}
	if logX {
		if lo == hi {
			p.X.Min, p.X.Max = lo/3, hi*3
			return
		}
		p.X.Min, p.X.Max = lo/1.5, hi*2.5
		return
	}
	span := hi - lo
	if span == 0 { // one point: in the middle, not on the left of an empty plot
		half := math.Max(math.Abs(hi)/2, 0.5)
		p.X.Min, p.X.Max = lo-half, hi+half
		if lo >= 0 {
			p.X.Min = math.Max(0, p.X.Min)
		}
		return
	}
	p.X.Min, p.X.Max = math.Max(0, lo-0.1*span), hi+0.35*span
	if lo < 0 {
		p.X.Min = lo - 0.1*span
	}
}

func trialPlot(groups []Group, o PlotOptions) (*plot.Plot, error) {
	p := plot.New()
	labels := Labels(groups)
	kinds := map[string]bool{}
	minX, maxX := math.MaxInt, math.MinInt
	drawn := 0
	for i, g := range groups {
		kind, series := g.Series()
		if len(series) == 0 {
			continue
		}
		kinds[kind] = true
		xys := make(plotter.XYs, len(series))
		for j, pt := range series {
			xys[j] = plotter.XY{X: float64(pt.X), Y: pt.Y}
			minX, maxX = min(minX, pt.X), max(maxX, pt.X)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(drawn)
		line.Dashes = plotutil.Dashes(drawn)
		line.Width = vg.Points(1.5)
		points.Color = plotutil.Color(drawn)
		points.Shape = plotutil.Shape(drawn)
		p.Add(line, points)
		p.Legend.Add(labels[i], line, points)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("no configuration reports per-trial accuracy (item metrics %sN or %sN)", SeriesTrial, SeriesIteration)
	}
	unit := "trial"
	switch {
	case kinds[SeriesTrial] && kinds[SeriesIteration]:
		unit = "trial / iteration"
	case kinds[SeriesIteration]:
		unit = "iteration"
	}
	p.Title.Text = fmt.Sprintf("accuracy after each %s: %s%s", unit, o.Title, simSuffix(groups))
	p.X.Label.Text = unit
	p.Y.Label.Text = "accuracy"
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = unitTicks{}
	p.X.Tick.Marker = integerTicks{}
	p.X.Min, p.X.Max = float64(minX)-0.25, float64(maxX)+0.25
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(6), vg.Points(6)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Add(plotter.NewGrid())
	return p, nil
}

// integerTicks labels whole numbers only.
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	step := math.Max(1, math.Ceil((max-min)/10))
	for v := math.Ceil(min); v <= max; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%.0f", v)})
	}
	return ticks
}

// unitTicks labels 0, 0.2, ..., 1 with minor ticks every 0.1.
type unitTicks struct{}

func (unitTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		if v < min-1e-9 || v > max+1e-9 {
			continue
		}
		t := plot.Tick{Value: v}
		if i%2 == 0 {
			t.Label = strconv.FormatFloat(v, 'f', 1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// PNGDPI is the resolution of PNG plots.
const PNGDPI = 200

// PlotFormats lists the image formats WritePlot writes.
var PlotFormats = []string{"svg", "png", "pdf"}

// WritePlot draws the plot in format (svg, png or pdf) at the given size.
func WritePlot(w io.Writer, p *plot.Plot, format string, width, height vg.Length) error {
	if !slices.Contains(PlotFormats, format) {
		return fmt.Errorf("image format %q: want one of %s", format, strings.Join(PlotFormats, ", "))
	}
	if format == "png" {
		c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))}
		drawPlot(p, draw.New(c))
		_, err := c.WriteTo(w)
		return err
	}
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return err
	}
	drawPlot(p, draw.New(c))
	_, err = c.WriteTo(w)
	return err
}

// drawPlot draws p with its title shrunk to the width and its legend in a
// band below the axes: gonum draws a legend inside the data area, where it
// covers points and axes.
func drawPlot(p *plot.Plot, c draw.Canvas) {
	minFont := vg.Points(6)
	for p.Title.TextStyle.Font.Size > minFont && p.Title.TextStyle.Width(p.Title.Text) > c.Size().X {
		p.Title.TextStyle.Font.Size -= vg.Points(0.5)
	}
	leg := p.Legend
	leg.Padding = vg.Points(2) // gonum's default puts lines edge to edge
	r := leg.Rectangle(c)
	if r.Size().Y == 0 {
		p.Draw(c)
		return
	}
	pad := vg.Points(4)
	for leg.TextStyle.Font.Size > minFont && r.Size().X+2*pad > c.Size().X {
		leg.TextStyle.Font.Size -= vg.Points(0.5)
		r = leg.Rectangle(c)
	}
	band := r.Size().Y + 2*pad
	p.Legend = plot.NewLegend() // no entries: the plot draws none
	defer func() { p.Legend = leg }()
	p.Draw(draw.Crop(c, 0, 0, band, 0))
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
	leg.Draw(draw.Crop(c, pad, 0, 0, -(c.Size().Y - band + pad)))
}
