package render

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestPlotAccuracySVG(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	p, err := NewPlot(groups, PlotOptions{X: "tokens", Y: "accuracy", Title: "experiment exp1"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlot(&b, p, "svg", 16*vg.Centimeter, 11*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if !strings.Contains(svg, "<svg") {
		t.Fatalf("not SVG: %.200s", svg)
	}
	for _, want := range []string{"cot k=4", "tot b=5", "cot k=8", "(simulated)", "tokens per item", "accuracy (bars: 95% CI)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if n := strings.Count(svg, ">cot k=4<") + strings.Count(svg, ">tot b=5<") + strings.Count(svg, ">cot k=8<"); n != 3 {
		t.Errorf("%d point labels, want 3", n)
	}
	b.Reset()
	if err := WritePlot(&b, p, "png", 8*vg.Centimeter, 6*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&b); err != nil {
		t.Errorf("png: %v", err)
	}
	if err := WritePlot(&b, p, "gif", vg.Centimeter, vg.Centimeter); err == nil {
		t.Error("gif accepted")
	}
}

func TestPlotErrors(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	cases := []struct {
		o    PlotOptions
		want string
	}{
		{PlotOptions{X: "flops", Y: "accuracy"}, "want one of tokens, calls, cost, wall"},
		{PlotOptions{X: "tokens", Y: "em"}, `no configuration reports metric "em"`},
		{PlotOptions{X: "cost", Y: "accuracy", LogX: true}, "log axis needs positive values"},
		{PlotOptions{X: "tokens", Y: PlotPerTrial}, "no configuration reports per-trial accuracy"},
	}
	for _, c := range cases {
		if _, err := NewPlot(groups, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if _, err := NewPlot(nil, PlotOptions{X: "tokens"}); err == nil {
		t.Error("empty plot accepted")
	}
}

func TestPlotPerTrial(t *testing.T) {
	rows := expRows()[:2]
	rows[0].Strategy, rows[0].Params = "reflexion", "max_trials=3"
	rows[0].Metrics = map[string]float64{"after_trial_1": 0.3, "after_trial_2": 0.5, "after_trial_3": 0.6}
	rows[1].Strategy, rows[1].Params = "selfrefine", "defaults"
	rows[1].Metrics = map[string]float64{"after_iteration_0": 0.2, "after_iteration_1": 0.4}
	p, err := NewPlot(Pivot(rows, 0.95), PlotOptions{Y: PlotPerTrial, Title: "exp"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlot(&b, p, "svg", 12*vg.Centimeter, 8*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">reflexion max_trials=3<", ">selfrefine<", "trial / iteration", "(simulated)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}
