package results

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/report"
)

func TestMatchBaseline(t *testing.T) {
	groups := []report.Group{
		{Strategy: "cot", Params: "k=1"},
		{Strategy: "tot", Params: "b=1"},
		{Strategy: "tot", Params: "b=5"},
	}
	cases := []struct {
		spec string
		want int
		err  string
	}{
		{"cot", 0, ""},
		{"tot b=5", 2, ""},
		{"tot", -1, "matches 2 configurations"},
		{"cotsc", -1, "matches none"},
		{"tot b=9", -1, "matches none"},
	}
	for _, c := range cases {
		got, err := MatchBaseline(groups, c.spec)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("MatchBaseline(%q) = %d, %v; want %d, %q", c.spec, got, err, c.want, c.err)
		}
	}
}
