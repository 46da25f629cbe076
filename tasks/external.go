package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ToolHost is the tools a run brings from outside its task (MCP servers):
// the same list for every item, each call recorded and replayed by the
// host. A strategy offers them beside the task's own tools.
type ToolHost interface {
	// Specs lists the tools in a fixed order.
	Specs() []ExternalTool
	// Call runs a tool by its Specs name. A failure of the tool (an error
	// result, a crashed or hung server, garbage) is a ToolResult with
	// Refused set and the reason as the observation; an error is only a
	// cancelled context.
	Call(ctx context.Context, name string, args json.RawMessage) (ToolResult, error)
}

// ExternalTool describes a tool of a ToolHost.
type ExternalTool struct {
	Name        string          // as offered to the model
	Description string          // the server's
	Schema      json.RawMessage // the arguments' JSON schema, as the server gave it
	Server      string          // the server's name in the run's configuration
	// Replaces names the task's tool this one is (the same name,
	// description and schema, as `bench mcp serve` serves them): offered
	// under that name in its place, the task's own spec kept, its calls
	// going to the server. "" for the server's other tools.
	Replaces string
}

// NewSchemaTool declares a tool whose arguments are described by a JSON
// schema (an external tool's): its parameters are the schema's properties
// in the order given, and run gets the arguments as a JSON object, coerced
// as decodeArgs coerces a Go tool's (case-insensitive keys, numbers from
// numeric strings for number and integer properties, a bare value for a
// tool of one argument).
func NewSchemaTool(name, description string, final bool, schema json.RawMessage, run func(ctx context.Context, args json.RawMessage) (ToolResult, error)) Tool {
	params := schemaParams(schema)
	t := Tool{Name: name, Description: description, Final: final, params: params,
		schema: append(json.RawMessage(nil), schema...)}
	sig := t.Signature()
	t.raw = func(ctx context.Context, args json.RawMessage) (ToolResult, error) {
		obj, err := coerceArgs(params, args)
		if err != nil {
			return ToolResult{Refused: true, Observation: fmt.Sprintf("Invalid arguments for %s: %v. Expected %s.", name, err, sig)}, nil
		}
		return run(ctx, obj)
	}
	return t
}

// schemaParams reads the properties of an object schema in the order the
// schema lists them.
func schemaParams(schema json.RawMessage) []ToolParam {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []ToolParam
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var prop struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		}
		if err := dec.Decode(&prop); err != nil {
			return out
		}
		typ, _ := prop.Type.(string)
		if list, ok := prop.Type.([]any); ok && len(list) > 0 {
			typ, _ = list[0].(string)
		}
		out = append(out, ToolParam{Name: key, Type: typ, Description: prop.Description,
			Required: slices.Contains(s.Required, key), field: -1})
	}
	return out
}

// coerceArgs turns what a model wrote into the arguments object: keys
// renamed to the schema's spelling, numeric strings into numbers where the
// schema wants one, other values as they are.
func coerceArgs(params []ToolParam, raw json.RawMessage) (json.RawMessage, error) {
	obj, err := argsObject(params, raw)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for k, v := range obj {
		out[k] = v
	}
	for _, p := range params {
		v, ok := lookupKey(obj, p.Name)
		if !ok {
			if p.Required {
				return nil, fmt.Errorf("missing %q", p.Name)
			}
			continue
		}
		for k := range obj { // the model's spelling gives way to the schema's
			if k != p.Name && strings.EqualFold(strings.TrimSpace(k), p.Name) {
				delete(out, k)
			}
		}
		if s, isStr := v.(string); isStr && (p.Type == "number" || p.Type == "integer") {
			if x, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				v = json.Number(strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
		out[p.Name] = v
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("unencodable arguments (%v)", shortErr(err))
	}
	return b, nil
}

// External reports whether the tool was declared by a schema
// (NewSchemaTool), as an external tool is.
func (t Tool) External() bool { return t.raw != nil }
