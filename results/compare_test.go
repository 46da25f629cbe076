package results

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/render"
)

func TestMatchBaseline(t *testing.T) {
	groups := []render.Group{
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

func TestMixedRules(t *testing.T) {
	for _, c := range []struct {
		rows []render.Row
		want string
	}{
		{[]render.Row{{RunID: 1, Rule: "game24/strict"}, {RunID: 2, Rule: "game24/strict"}}, ""},
		{[]render.Row{{RunID: 1, Rule: "game24/strict"}, {RunID: 2}}, ""}, // a run that recorded no rule
		{[]render.Row{{RunID: 2, Rule: "game24/paper"}, {RunID: 1, Rule: "game24/strict"}, {RunID: 3, Rule: "game24/paper"}},
			"the runs are scored by different rules: game24/paper (run 2, 3); game24/strict (run 1); their difference mixes the rules"},
	} {
		if got := MixedRules(c.rows); got != c.want {
			t.Errorf("MixedRules(%+v) = %q, want %q", c.rows, got, c.want)
		}
	}
}
