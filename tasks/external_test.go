package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const sumSchema = `{"type":"object","properties":{"b":{"type":"number","description":"second"},"a":{"type":["integer","null"]},"note":{"type":"string"}},"required":["b","a"]}`

// TestSchemaTool: parameters in the schema's order; arguments coerced as
// models write them; what cannot be read is a refused call.
func TestSchemaTool(t *testing.T) {
	var got json.RawMessage
	tool := NewSchemaTool("get-sum", "Adds.", false, json.RawMessage(sumSchema), func(_ context.Context, args json.RawMessage) (ToolResult, error) {
		got = args
		return ToolResult{Observation: "ok"}, nil
	})
	if sig := tool.Signature(); sig != `{"b": number, "a": integer, "note": string}` || !tool.External() {
		t.Fatalf("signature %s", sig)
	}
	if ps := tool.Params(); !ps[0].Required || !ps[1].Required || ps[2].Required || ps[0].Description != "second" {
		t.Errorf("params: %+v", ps)
	}
	for _, c := range []struct{ in, want, refused string }{
		{in: `{"a": 1, "b": 2}`, want: `{"a":1,"b":2}`},
		{in: `{"A": "1", " B ": " 2.5 ", "extra": true}`, want: `{"a":1,"b":2.5,"extra":true}`},
		{in: `{"a": "one", "b": 2}`, want: `{"a":"one","b":2}`}, // the server's own validation judges
		{in: `{"a": 1}`, refused: `missing "b"`},
		{in: `{"a": 1, "b": 2`, refused: "malformed JSON"},
		{in: `[1, 2]`, refused: "want a JSON object"},
		{in: `{} trailing`, refused: "malformed JSON"},
	} {
		got = nil
		res, err := tool.Call(context.Background(), json.RawMessage(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if c.refused != "" {
			if !res.Refused || !strings.Contains(res.Observation, c.refused) || got != nil {
				t.Errorf("%s: %+v", c.in, res)
			}
			continue
		}
		if res.Refused || string(got) != c.want {
			t.Errorf("%s: sent %s, want %s (%+v)", c.in, got, c.want, res)
		}
	}
	one := NewSchemaTool("echo", "", false, json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`),
		func(_ context.Context, args json.RawMessage) (ToolResult, error) {
			return ToolResult{Observation: string(args)}, nil
		})
	if res, _ := one.Call(context.Background(), json.RawMessage(`"hello"`)); res.Observation != `{"message":"hello"}` {
		t.Errorf("a bare value for one argument: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := one.Call(ctx, json.RawMessage(`{}`)); err == nil {
		t.Error("a cancelled context ran the tool")
	}
}

// FuzzCoerceArgs: whatever a model writes, coercion gives a JSON object
// carrying every required parameter, or an error; never a panic.
func FuzzCoerceArgs(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": "2"}`, `"x"`, `null`, `{"B": "1e400"}`, `{`, "\x00"} {
		f.Add(s)
	}
	params := schemaParams(json.RawMessage(sumSchema))
	f.Fuzz(func(t *testing.T, in string) {
		out, err := coerceArgs(params, json.RawMessage(in))
		if err != nil {
			return
		}
		var obj map[string]any
		if json.Unmarshal(out, &obj) != nil {
			t.Fatalf("%q gave %s, not an object", in, out)
		}
		for _, p := range params {
			if _, ok := obj[p.Name]; p.Required && !ok {
				t.Fatalf("%q gave %s without %s", in, out, p.Name)
			}
		}
	})
}

// TestRouted: a routed tool keeps its name, schema and parameters and
// hands the arguments, as written, to its route; a cancelled context
// stops it before the route runs.
func TestRouted(t *testing.T) {
	type args struct {
		Entity string `json:"entity" desc:"a name"`
	}
	own := NewTool("search", "Search a page.", false, func(context.Context, args) (ToolResult, error) {
		return ToolResult{Observation: "built-in"}, nil
	})
	var got []string
	r := own.Routed(func(_ context.Context, a json.RawMessage) (ToolResult, error) {
		got = append(got, string(a))
		return ToolResult{Observation: "routed"}, nil
	})
	if r.Name != own.Name || r.Description != own.Description || string(r.Schema()) != string(own.Schema()) || r.Signature() != own.Signature() || r.External() {
		t.Errorf("routed %+v, own %+v", r, own)
	}
	res, err := r.Call(context.Background(), json.RawMessage(`{"ENTITY": 3}`))
	if err != nil || res.Observation != "routed" || len(got) != 1 || got[0] != `{"ENTITY": 3}` {
		t.Errorf("routed call: %+v %v %q", res, err, got)
	}
	if res, _ := own.Call(context.Background(), json.RawMessage(`{"entity": "x"}`)); res.Observation != "built-in" {
		t.Errorf("the original changed: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Call(ctx, nil); err == nil || len(got) != 1 {
		t.Errorf("cancelled: %v, %d calls", err, len(got))
	}
}
