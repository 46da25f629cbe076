package render

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// svgText is one upright text of a rendered SVG, as a box in points from
// the image's bottom left.
type svgText struct {
	s              string
	x0, x1, y0, y1 float64
}

var (
	svgSize  = regexp.MustCompile(`viewBox="0 0 ([0-9.]+) ([0-9.]+)"`)
	svgText1 = regexp.MustCompile(`(?s)(<g transform="rotate\([^)]*\)">\s*)?<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"\s*style="[^"]*font-size:([0-9.]+)px">([^<]*)</text>`)
)

// svgTexts parses gonum's SVG: each upright text's box from the font's
// metrics (gonum positions text by its left end and baseline); the y
// axis's rotated label is left out.
func svgTexts(t *testing.T, svg string) (w, h float64, texts []svgText) {
	t.Helper()
	m := svgSize.FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no viewBox in %.200s", svg)
	}
	w, _ = strconv.ParseFloat(m[1], 64)
	h, _ = strconv.ParseFloat(m[2], 64)
	for _, m := range svgText1.FindAllStringSubmatch(svg, -1) {
		if m[1] != "" {
			continue // the y axis's rotated label
		}
		x, _ := strconv.ParseFloat(m[2], 64)
		y, _ := strconv.ParseFloat(m[3], 64)
		size, _ := strconv.ParseFloat(m[4], 64)
		s := strings.NewReplacer("&#39;", "'", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`).Replace(m[5])
		sty := text.Style{Font: font.From(plotter.DefaultFont, vg.Length(size)), Handler: plot.DefaultTextHandler}
		ext := sty.FontExtents()
		base := -y // the text's own scale(1, -1)
		// The glyphs' ink: the font's ascent includes room above the
		// tallest letters (0.89 em in Liberation Serif, whose capitals and
		// brackets reach about 0.7 em), where gonum itself puts a title.
		texts = append(texts, svgText{s: s, x0: x, x1: x + float64(sty.Width(s)),
			y0: base - float64(ext.Descent), y1: base + 0.75*size})
	}
	return w, h, texts
}

// checkLayout fails when a text leaves the image or two texts overlap.
func checkLayout(t *testing.T, name, svg string) []svgText {
	t.Helper()
	w, h, texts := svgTexts(t, svg)
	if len(texts) == 0 {
		t.Fatalf("%s: no text found", name)
	}
	const eps = 0.5
	for _, a := range texts {
		if a.x0 < -eps || a.x1 > w+eps || a.y0 < -eps || a.y1 > h+eps {
			t.Errorf("%s: %q at x %.1f..%.1f, y %.1f..%.1f leaves the %.0f×%.0f image", name, a.s, a.x0, a.x1, a.y0, a.y1, w, h)
		}
	}
	for i, a := range texts {
		for _, b := range texts[i+1:] {
			if a.x0 < b.x1-eps && b.x0 < a.x1-eps && a.y0 < b.y1-eps && b.y0 < a.y1-eps {
				t.Errorf("%s: %q overlaps %q", name, a.s, b.s)
			}
		}
	}
	return texts
}

func find(texts []svgText, s string) (svgText, bool) {
	for _, x := range texts {
		if x.s == s {
			return x, true
		}
	}
	return svgText{}, false
}

func renderSVG(t *testing.T, p *plot.Plot, w, h vg.Length) string {
	t.Helper()
	var b bytes.Buffer
	if err := WritePlot(&b, p, "svg", w, h); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPlotTextsStayInside renders the plots bench plot and the viewer draw,
// at the viewer's sizes and narrower, and checks every text lies inside the
// image without overlapping another: the costliest point's label, a single
// point's label against the title, the legend against the axes.
func TestPlotTextsStayInside(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	one := Pivot(expRows()[3:4], 0.95)
	one[0].Accuracy, one[0].CI.High = 1, 1
	curves := make([][]CurvePoint, len(groups))
	curves[0] = []CurvePoint{{1, 25, 0.4}, {2, 50, 0.55}, {4, 100, 0.6}}
	type tc struct {
		name string
		p    func() (*plot.Plot, error)
		w, h vg.Length
	}
	plain := func(g []Group, o PlotOptions) func() (*plot.Plot, error) {
		return func() (*plot.Plot, error) { return NewPlot(g, o) }
	}
	front := func() (*plot.Plot, error) {
		p, _, err := NewFrontierPlot(groups, curves, PlotOptions{X: "tokens", Title: "experiment exp1", LogX: true})
		return p, err
	}
	cases := []tc{
		{"accuracy", plain(groups, PlotOptions{X: "tokens", Title: "experiment exp1"}), 12 * vg.Centimeter, 8 * vg.Centimeter},
		{"accuracy narrow", plain(groups, PlotOptions{X: "tokens", Title: "experiment exp1"}), 7 * vg.Centimeter, 6 * vg.Centimeter},
		{"log x narrow", plain(groups, PlotOptions{X: "tokens", Title: "experiment exp1", LogX: true}), 7 * vg.Centimeter, 6 * vg.Centimeter},
		{"one point", plain(one, PlotOptions{X: "tokens", Title: "run 4"}), 12 * vg.Centimeter, 8 * vg.Centimeter},
		{"one point log", plain(one, PlotOptions{X: "tokens", Title: "run 4", LogX: true}), 12 * vg.Centimeter, 8 * vg.Centimeter},
		{"frontier", front, 16 * vg.Centimeter, 10 * vg.Centimeter},
		{"frontier narrow", front, 9 * vg.Centimeter, 7 * vg.Centimeter},
	}
	for _, c := range cases {
		p, err := c.p()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		texts := checkLayout(t, c.name, renderSVG(t, p, c.w, c.h))
		if _, ok := find(texts, "tot b=5"); !ok && !strings.HasPrefix(c.name, "one") {
			t.Errorf("%s: the b=5 label is missing", c.name)
		}
		if !strings.HasPrefix(c.name, "frontier") {
			continue
		}
		// The legend is a band below the x axis's label: over no point or axis.
		xl, ok := find(texts, "tokens per item")
		for _, entry := range []string{"Pareto frontier (best accuracy at each budget)", "cot k=4: vote over k' of its samples"} {
			e, found := find(texts, entry)
			if !ok || !found || e.y1 > xl.y0 {
				t.Errorf("%s: legend entry %q (found %v, top %.1f) not below the axis label (bottom %.1f)", c.name, entry, found, e.y1, xl.y0)
			}
		}
	}
}

// TestOnePointIsCentred: a single configuration sits in the middle of its
// x range, not at the left of an empty plot.
func TestOnePointIsCentred(t *testing.T) {
	one := Pivot(expRows()[3:4], 0.95)
	for _, logX := range []bool{false, true} {
		p, err := NewPlot(one, PlotOptions{X: "tokens", Title: "run 4", LogX: logX})
		if err != nil {
			t.Fatal(err)
		}
		x := one[0].TokensPerItem
		frac := (x - p.X.Min) / (p.X.Max - p.X.Min)
		if logX {
			frac = (log10(x) - log10(p.X.Min)) / (log10(p.X.Max) - log10(p.X.Min))
		}
		if frac < 0.4 || frac > 0.6 {
			t.Errorf("logx=%v: the point is at %.2f of the x range [%g, %g], want the middle", logX, frac, p.X.Min, p.X.Max)
		}
	}
}

func log10(x float64) float64 { return math.Log10(x) }

// TestPointLabelsAtTheCorners: labels of points on the data area's right
// and top edges turn left and down rather than run past the image or into
// the title.
func TestPointLabelsAtTheCorners(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a title over the data area"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(newPointLabels(plotter.XYs{{X: 1, Y: 0.5}, {X: 0.5, Y: 1}, {X: 1, Y: 1}, {X: 0, Y: 0}},
		[]string{"tot b=5 at the right edge", "at the top", "in the corner", "origin"}))
	texts := checkLayout(t, "corners", renderSVG(t, p, 8*vg.Centimeter, 5*vg.Centimeter))
	if len(texts) < 5 {
		t.Errorf("%d texts, want the title and four labels", len(texts))
	}
	// The right edge's label is left of its point (x = 1, under the tick
	// label "1.0"), not clamped over it.
	var tick svgText
	for _, x := range texts {
		if x.s == "1.0" && x.y0 < 15 {
			tick = x
		}
	}
	if l, ok := find(texts, "tot b=5 at the right edge"); !ok || tick.s == "" || l.x1 > (tick.x0+tick.x1)/2 {
		t.Errorf("right-edge label %+v not left of its point (x tick %+v)", l, tick)
	}
}
