package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/events"
)

// Toolbox is implemented by tasks an agent (ReAct) can act on with tools:
// HotpotQA's search/lookup/finish over a docstore, Game of 24's exact
// arithmetic.
type Toolbox interface {
	// Tools returns the tools of one trajectory on inst. Tools may share
	// state (a docstore's current page, the numbers left on the board), so
	// every call returns a fresh set; a set is used by one trajectory at a
	// time.
	Tools(inst Instance) ([]Tool, error)
}

// ToolResult is what a tool call gives back.
type ToolResult struct {
	// Observation is shown to the model.
	Observation string
	// Final means the call ends the trajectory (finish): Output is the final
	// output, scored with Task.Score.
	Final  bool
	Output string
	// Refused marks a call the tool did not carry out (invalid arguments, a
	// number not on the board, an empty answer, an external tool's
	// failure); Observation says why.
	Refused bool
	// Call is the record of an external tool's call (ToolHost); nil for a
	// task's own tools.
	Call *events.ToolCall
}

// ToolParam is one argument of a tool, read from a field of its Go type.
type ToolParam struct {
	Name        string // the field's json name
	Type        string // JSON schema type: string, integer, number or boolean
	Description string // the field's desc tag
	Required    bool   // false when the json tag says omitempty

	field int // index of the struct field
}

// Tool is a function an agent may call. Its arguments are a Go struct;
// the JSON schema shown to the model is generated from that type (see
// NewTool), and arguments the model writes are decoded into it leniently.
type Tool struct {
	Name        string
	Description string
	// Final is set on the tool that answers (finish): at a step limit an
	// agent may still call it, and only it.
	Final bool

	params []ToolParam
	schema json.RawMessage
	argTyp reflect.Type
	run    func(ctx context.Context, args any) (ToolResult, error)
	// raw runs a tool declared by a JSON schema (NewSchemaTool).
	raw func(ctx context.Context, args json.RawMessage) (ToolResult, error)
	// route carries out the calls of a tool a tool server serves (Routed).
	route func(ctx context.Context, args json.RawMessage) (ToolResult, error)
}

// NewTool declares a tool whose arguments are the struct type A. Each
// exported field of A is one argument: its name is the json tag's name (the
// field name without one), its description the desc tag, and it is required
// unless the json tag says omitempty. Fields may be strings, integers,
// floats or bools. run gets the decoded arguments; it returns an error only
// for failures that should stop the run (a cancelled context), never for
// bad model input, which belongs in the observation.
//
// NewTool panics if A is not such a struct: tool types are fixed in code,
// like a regexp.MustCompile pattern.
func NewTool[A any](name, description string, final bool, run func(ctx context.Context, args A) (ToolResult, error)) Tool {
	typ := reflect.TypeFor[A]()
	params, err := paramsOf(typ)
	if err != nil {
		panic(fmt.Sprintf("tasks.NewTool %s: %v", name, err))
	}
	return Tool{
		Name: name, Description: description, Final: final,
		params: params, schema: schemaOf(params), argTyp: typ,
		run: func(ctx context.Context, a any) (ToolResult, error) { return run(ctx, a.(A)) },
	}
}

// Params lists the tool's arguments in field order.
func (t Tool) Params() []ToolParam { return append([]ToolParam(nil), t.params...) }

// Schema returns the JSON schema of the arguments object, properties in
// field order.
func (t Tool) Schema() json.RawMessage { return append(json.RawMessage(nil), t.schema...) }

// Call decodes args (a JSON object; see DecodeArgs) and runs the tool.
// Arguments that do not decode give a refused result whose observation says
// what was wrong, not an error.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (ToolResult, error) {
	if t.route != nil {
		if err := ctx.Err(); err != nil {
			return ToolResult{}, err
		}
		return t.route(ctx, args)
	}
	if t.raw != nil {
		if err := ctx.Err(); err != nil {
			return ToolResult{}, err
		}
		return t.raw(ctx, args)
	}
	if t.run == nil {
		return ToolResult{}, fmt.Errorf("tool %s was not made with NewTool", t.Name)
	}
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}
	v := reflect.New(t.argTyp)
	if err := decodeArgs(t.params, args, v.Elem()); err != nil {
		return ToolResult{Refused: true, Observation: fmt.Sprintf("Invalid arguments for %s: %v. Expected %s.", t.Name, err, t.Signature())}, nil
	}
	return t.run(ctx, v.Elem().Interface())
}

// Routed returns the tool with its calls carried out by run, given the
// arguments as the model wrote them: a tool server that serves this very
// tool (ExternalTool.Replaces). Name, description, schema and parameters
// stay the tool's own, so the model is offered the same tool.
func (t Tool) Routed(run func(ctx context.Context, args json.RawMessage) (ToolResult, error)) Tool {
	t.route = run
	return t
}

// Signature describes the arguments for error messages:
// `{"entity": string}`.
func (t Tool) Signature() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range t.params {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: %s", p.Name, p.Type)
	}
	b.WriteByte('}')
	return b.String()
}

// paramsOf reads the argument list of a struct type.
func paramsOf(typ reflect.Type) ([]ToolParam, error) {
	if typ.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments type %s is not a struct", typ)
	}
	var out []ToolParam
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		// Names must differ in more than case: arguments match case-insensitively.
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("field %s: duplicate argument name %q", f.Name, name)
		}
		seen[strings.ToLower(name)] = true
		p := ToolParam{Name: name, Description: f.Tag.Get("desc"), Required: !strings.Contains(","+opts+",", ",omitempty,"), field: i}
		switch f.Type.Kind() {
		case reflect.String:
			p.Type = "string"
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			p.Type = "integer"
		case reflect.Float32, reflect.Float64:
			p.Type = "number"
		case reflect.Bool:
			p.Type = "boolean"
		default:
			return nil, fmt.Errorf("field %s: unsupported type %s (want string, integer, number or bool)", f.Name, f.Type)
		}
		out = append(out, p)
	}
	return out, nil
}

// schemaOf writes the JSON schema by hand so the property order is the
// field order (chat templates render schemas as given).
func schemaOf(params []ToolParam) json.RawMessage {
	str := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(str(p.Name) + `:{"type":` + str(p.Type))
		if p.Description != "" {
			b.WriteString(`,"description":` + str(p.Description))
		}
		b.WriteByte('}')
		if p.Required {
			required = append(required, str(p.Name))
		}
	}
	b.WriteString(`},"required":[` + strings.Join(required, ",") + `],"additionalProperties":false}`)
	return json.RawMessage(b.String())
}

// decodeArgs decodes a tool's arguments into params order, leniently, as
// models write them: empty input or null is {}; keys match exactly or else
// case-insensitively; unknown keys are ignored; a string field takes a
// number or bool as its text, a number field a numeric string; a tool with
// one argument also takes a bare JSON value for it ("Paris" for
// {"entity": "Paris"}). A missing required argument is an error.
func decodeArgs(params []ToolParam, raw json.RawMessage, dst reflect.Value) error {
	obj, err := argsObject(params, raw)
	if err != nil {
		return err
	}
	for _, p := range params {
		v, ok := lookupKey(obj, p.Name)
		if !ok || v == nil {
			if p.Required {
				return fmt.Errorf("missing %q", p.Name)
			}
			continue
		}
		if err := setField(dst.Field(p.field), v); err != nil {
			return fmt.Errorf("%q: %v", p.Name, err)
		}
	}
	return nil
}

// argsObject reads a tool's arguments as models write them: empty input
// or null is {}; a tool with one argument also takes a bare JSON value for
// it; numbers stay as written (json.Number).
func argsObject(params []ToolParam, raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("malformed JSON (%v)", shortErr(err))
	}
	if dec.More() {
		return nil, errors.New("malformed JSON (text after the arguments object)")
	}
	if obj, ok := v.(map[string]any); ok {
		return obj, nil
	}
	if len(params) != 1 {
		return nil, errors.New("want a JSON object")
	}
	return map[string]any{params[0].Name: v}, nil
}

func lookupKey(obj map[string]any, name string) (any, bool) {
	if v, ok := obj[name]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return v, true
		}
	}
	return nil, false
}

func setField(f reflect.Value, v any) error {
	switch f.Kind() {
	case reflect.String:
		switch t := v.(type) {
		case string:
			f.SetString(t)
		case json.Number:
			f.SetString(t.String())
		case bool:
			f.SetString(strconv.FormatBool(t))
		default:
			return errors.New("want a string")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(numberText(v)), 10, 64)
		if err != nil || f.OverflowInt(n) {
			return errors.New("want an integer")
		}
		f.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(strings.TrimSpace(numberText(v)), 10, 64)
		if err != nil || f.OverflowUint(n) {
			return errors.New("want a non-negative integer")
		}
		f.SetUint(n)
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(numberText(v)), 64)
		if err != nil || f.OverflowFloat(x) {
			return errors.New("want a number")
		}
		f.SetFloat(x)
	case reflect.Bool:
		switch t := v.(type) {
		case bool:
			f.SetBool(t)
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(t))
			if err != nil {
				return errors.New("want true or false")
			}
			f.SetBool(b)
		default:
			return errors.New("want true or false")
		}
	}
	return nil
}

// numberText is the text of a JSON number or string; "" otherwise.
func numberText(v any) string {
	switch t := v.(type) {
	case json.Number:
		return t.String()
	case string:
		if len(t) > 64 {
			return ""
		}
		return t
	}
	return ""
}

// shortErr bounds an error's text (json errors may quote input).
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "")
}
