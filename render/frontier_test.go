package render

import (
	"testing"
)

func TestFrontier(t *testing.T) {
	pts := []FrontierPoint{
		{"b", 200, 0.3}, {"a", 100, 0.2}, {"dominated", 300, 0.25}, {"c", 400, 0.5}, {"same cost, worse", 100, 0.1}, {"d", 400, 0.45},
	}
	got := Frontier(pts)
	want := []string{"a", "b", "c"}
	if len(got) != len(want) {
		t.Fatalf("Frontier = %+v, want %v", got, want)
	}
	for i := range want {
		if got[i].Label != want[i] {
			t.Errorf("Frontier = %+v, want %v", got, want)
		}
	}
}

func TestFrontierPlotNeedsTokensOrCost(t *testing.T) {
	g := []Group{{Strategy: "io", Accuracy: 0.5, TokensPerItem: 10, CI: Interval{Low: 0.4, High: 0.6, Method: MethodWilson}}}
	if _, _, err := NewFrontierPlot(g, nil, PlotOptions{X: "calls"}); err == nil {
		t.Error("--x calls: want an error")
	}
	curve := [][]CurvePoint{{{1, 5, 0.3}, {2, 10, 0.5}}}
	_, front, err := NewFrontierPlot(g, curve, PlotOptions{X: "tokens"})
	if err != nil || len(front) != 2 || front[0].X != 5 {
		t.Errorf("frontier %+v, %v; want the k'=1 point first, then the configuration", front, err)
	}
}

func TestStretches(t *testing.T) {
	front := []FrontierPoint{
		{Label: "io k=1", X: 100, Y: 0.1},
		{Label: "cotsc k=10 at k'=1", X: 200, Y: 0.2},
		{Label: "cotsc k=10 at k'=2", X: 250, Y: 0.25},
		{Label: "cotsc k=10 at k'=3", X: 300, Y: 0.3},
		{Label: "tot b=1", X: 400, Y: 0.8},
		{Label: "cotsc k=5 at k'=5", X: 500, Y: 0.85},
	}
	got := Stretches(front)
	want := []string{"io k=1", "cotsc k=10, k'=1 to k'=3", "tot b=1", "cotsc k=5 at k'=5"}
	if len(got) != len(want) {
		t.Fatalf("%d stretches %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Label != w {
			t.Errorf("stretch %d: %q, want %q", i, got[i].Label, w)
		}
	}
	if got[1].From.X != 200 || got[1].To.X != 300 || got[0].From != got[0].To {
		t.Errorf("stretch bounds %+v", got)
	}
}
