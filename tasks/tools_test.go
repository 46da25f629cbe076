package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type demoArgs struct {
	Entity string  `json:"entity" desc:"what to look for"`
	Count  int     `json:"count,omitempty" desc:"how many"`
	Weight float64 `json:"weight,omitempty"`
	Exact  bool    `json:"exact,omitempty"`
	Hidden string  `json:"-"`
	inner  string  // unexported fields are not arguments
	Plain  string  `json:",omitempty"`
}

func demoTool(got *demoArgs) Tool {
	return NewTool("demo", "a demo tool", false, func(_ context.Context, a demoArgs) (ToolResult, error) {
		*got = a
		return ToolResult{Observation: "ok " + a.Entity}, nil
	})
}

func TestSchemaFromGoType(t *testing.T) {
	var got demoArgs
	tool := demoTool(&got)
	want := `{"type":"object","properties":{` +
		`"entity":{"type":"string","description":"what to look for"},` +
		`"count":{"type":"integer","description":"how many"},` +
		`"weight":{"type":"number"},` +
		`"exact":{"type":"boolean"},` +
		`"Plain":{"type":"string"}},` +
		`"required":["entity"],"additionalProperties":false}`
	if s := string(tool.Schema()); s != want {
		t.Errorf("schema\n got %s\nwant %s", s, want)
	}
	if !json.Valid(tool.Schema()) {
		t.Error("schema is not valid JSON")
	}
	ps := tool.Params()
	if len(ps) != 5 || ps[0].Name != "entity" || !ps[0].Required || ps[1].Required || ps[4].Name != "Plain" {
		t.Errorf("params %+v", ps)
	}
	if sig := tool.Signature(); sig != `{"entity": string, "count": integer, "weight": number, "exact": boolean, "Plain": string}` {
		t.Errorf("signature %s", sig)
	}
}

func TestNewToolRejectsUnsupportedTypes(t *testing.T) {
	cases := map[string]func(){
		"not a struct": func() {
			NewTool("x", "", false, func(context.Context, string) (ToolResult, error) { return ToolResult{}, nil })
		},
		"slice field": func() {
			type bad struct {
				Items []string `json:"items"`
			}
			NewTool("x", "", false, func(context.Context, bad) (ToolResult, error) { return ToolResult{}, nil })
		},
		"duplicate name": func() {
			type bad struct {
				A string `json:"a"`
				B string `json:"A,omitempty"`
				C string `json:"B"`
			}
			NewTool("x", "", false, func(context.Context, bad) (ToolResult, error) { return ToolResult{}, nil })
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

func TestToolCallDecodesLeniently(t *testing.T) {
	cases := []struct {
		name    string
		args    string
		want    demoArgs
		refused string // part of the observation when refused
	}{
		{name: "exact keys", args: `{"entity": "Paris", "count": 2, "weight": 1.5, "exact": true}`, want: demoArgs{Entity: "Paris", Count: 2, Weight: 1.5, Exact: true}},
		{name: "keys in any case", args: `{"ENTITY": "Paris", " Count ": 3}`, want: demoArgs{Entity: "Paris", Count: 3}},
		{name: "number as string field", args: `{"entity": 1947}`, want: demoArgs{Entity: "1947"}},
		{name: "bool as string field", args: `{"entity": true}`, want: demoArgs{Entity: "true"}},
		{name: "numeric strings", args: `{"entity": "x", "count": " 7 ", "weight": "2.5", "exact": "true"}`, want: demoArgs{Entity: "x", Count: 7, Weight: 2.5, Exact: true}},
		{name: "unknown keys ignored", args: `{"entity": "x", "bogus": [1, 2]}`, want: demoArgs{Entity: "x"}},
		{name: "missing required", args: `{"count": 1}`, refused: `missing "entity"`},
		{name: "empty arguments", args: ``, refused: `missing "entity"`},
		{name: "null", args: `null`, refused: `missing "entity"`},
		{name: "null value", args: `{"entity": null}`, refused: `missing "entity"`},
		{name: "malformed", args: `{"entity": "Paris"`, refused: "malformed JSON"},
		{name: "trailing text", args: `{"entity": "Paris"} and more`, refused: "malformed JSON"},
		{name: "not an object", args: `["Paris"]`, refused: "want a JSON object"},
		{name: "bad integer", args: `{"entity": "x", "count": 1.5}`, refused: `"count": want an integer`},
		{name: "integer overflow", args: `{"entity": "x", "count": 1e300}`, refused: `"count": want an integer`},
		{name: "object for string", args: `{"entity": {"a": 1}}`, refused: `"entity": want a string`},
		{name: "bad bool", args: `{"entity": "x", "exact": "maybe"}`, refused: `"exact": want true or false`},
		{name: "huge numeric string", args: `{"entity": "x", "weight": "` + strings.Repeat("9", 100) + `"}`, refused: `"weight": want a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got demoArgs
			res, err := demoTool(&got).Call(context.Background(), json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if c.refused != "" {
				if !res.Refused || !strings.Contains(res.Observation, c.refused) || !strings.Contains(res.Observation, "Invalid arguments for demo") {
					t.Errorf("result %+v, want refused with %q", res, c.refused)
				}
				return
			}
			if res.Refused || got != c.want {
				t.Errorf("result %+v, args %+v, want %+v", res, got, c.want)
			}
		})
	}
}

func TestSingleArgumentToolTakesABareValue(t *testing.T) {
	type one struct {
		Entity string `json:"entity"`
	}
	var got string
	tool := NewTool("search", "", false, func(_ context.Context, a one) (ToolResult, error) {
		got = a.Entity
		return ToolResult{}, nil
	})
	for args, want := range map[string]string{`"Paris"`: "Paris", `42`: "42", `{"entity": "Rome"}`: "Rome"} {
		got = ""
		if res, err := tool.Call(context.Background(), json.RawMessage(args)); err != nil || res.Refused || got != want {
			t.Errorf("Call(%s): %+v %v, entity %q, want %q", args, res, err, got, want)
		}
	}
}

func TestToolCallStopsOnCancelledContext(t *testing.T) {
	var got demoArgs
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := demoTool(&got).Call(ctx, json.RawMessage(`{"entity":"x"}`)); err == nil {
		t.Error("no error for a cancelled context")
	}
	if _, err := (Tool{Name: "zero"}).Call(context.Background(), nil); err == nil {
		t.Error("zero Tool: no error")
	}
}
