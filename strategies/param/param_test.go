package param

import (
	"reflect"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	decl := []Param{
		{Name: "k", Kind: Int, Default: 1, Min: Bound(1)},
		{Name: "temperature", Kind: Float, Default: 0.7, Min: Bound(0), Max: Bound(2)},
		{Name: "vote_key", Kind: String, Default: "line", Allowed: []string{"line", "expression"}},
		{Name: "dedupe", Kind: Bool, Default: true},
	}
	cases := []struct {
		name    string
		raw     map[string]any
		want    Values
		wantErr string
	}{
		{"defaults", nil, Values{"k": 1, "temperature": 0.7, "vote_key": "line", "dedupe": true}, ""},
		{"strings from --set", map[string]any{"k": "10", "temperature": "0", "vote_key": "expression", "dedupe": "false"},
			Values{"k": 10, "temperature": 0.0, "vote_key": "expression", "dedupe": false}, ""},
		{"json numbers", map[string]any{"k": 5.0, "temperature": 1}, Values{"k": 5, "temperature": 1.0, "vote_key": "line", "dedupe": true}, ""},
		{"unknown", map[string]any{"kk": "1"}, nil, `unknown parameter "kk" (known: k, temperature, vote_key, dedupe)`},
		{"not int", map[string]any{"k": "ten"}, nil, "want a whole number"},
		{"fraction", map[string]any{"k": 1.5}, nil, "want a whole number"},
		{"below min", map[string]any{"k": "0"}, nil, "must be at least 1"},
		{"above max", map[string]any{"temperature": "3"}, nil, "must be at most 2"},
		{"not allowed", map[string]any{"vote_key": "canonical"}, nil, "want one of line, expression"},
		{"bad bool", map[string]any{"dedupe": "maybe"}, nil, "want true or false"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(decl, c.raw)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
			if got.Summary(decl) == "" || len(got.JSON()) == 0 {
				t.Error("empty summary or JSON")
			}
		})
	}
}

func TestParseSets(t *testing.T) {
	t.Parallel()
	raw, err := ParseSets([]string{"k=10", " temperature = 0.5 "})
	if err != nil || raw["k"] != "10" || raw["temperature"] != "0.5" {
		t.Fatalf("raw = %v, %v", raw, err)
	}
	for _, bad := range []string{"k", "=3", ""} {
		if _, err := ParseSets([]string{bad}); err == nil {
			t.Errorf("ParseSets(%q) succeeded", bad)
		}
	}
}

// A declaration with OtherParams keeps undeclared values as JSON values
// (a --set string reading as a number, boolean or null as that value),
// shows them in the summary, and still checks the declared ones.
func TestOtherParams(t *testing.T) {
	t.Parallel()
	decl := []Param{{Name: "cmd", Kind: String, Default: ""}, {Name: "n", Kind: Int, Default: 1}, {Name: OtherParams, Kind: String, Default: ""}}
	v, err := Resolve(decl, map[string]any{"cmd": "x", "k": "5", "t": 0.7, "on": "true", "name": "007", "list": []any{1, "a"}, "y": 3})
	if err != nil {
		t.Fatal(err)
	}
	want := Values{"cmd": "x", "n": 1, "k": 5.0, "t": 0.7, "on": true, "name": "007", "list": []any{1.0, "a"}, "y": 3.0}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v\nwant %#v", v, want)
	}
	if got := v.Summary(decl); got != `cmd=x k=5 list=[1,"a"] name=007 on=true t=0.7 y=3` {
		t.Errorf("summary %q", got)
	}
	if _, err := Resolve(decl, map[string]any{"n": "x"}); err == nil {
		t.Error("a declared parameter is still checked")
	}
	if _, err := Resolve(decl, map[string]any{OtherParams: "x"}); err == nil {
		t.Error("* itself was accepted")
	}
	if _, err := Resolve(decl[:2], map[string]any{"k": "5"}); err == nil {
		t.Error("an undeclared parameter was accepted without OtherParams")
	}
}
