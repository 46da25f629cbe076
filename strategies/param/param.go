// Package param declares typed parameters (a strategy's knobs) once:
// parsing from --set and experiment files, validation, defaults, the
// recorded JSON and the summary tables show. It imports nothing of the
// engine, so the read side can summarize a recorded run's values.
package param

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind is a parameter's type.
type Kind string

// Parameter kinds.
const (
	Int    Kind = "int"
	Float  Kind = "float"
	String Kind = "string"
	Bool   Kind = "bool"
)

// Param declares one strategy knob once; parsing, validation, recording and
// `bench list` all read this declaration.
type Param struct {
	Name    string
	Kind    Kind
	Default any      // int, float64, string or bool, matching Kind
	Allowed []string // for String: the permitted values (empty = any)
	Min     *float64 // for Int and Float: inclusive bounds
	Max     *float64
	Doc     string
	// Show puts the parameter in Summary even at its default, for values a
	// table must never hide (Reflexion's evaluator: oracle peeks at gold).
	Show bool
	// ModelDefault lets a Float take the value ModelDefaultValue: the
	// parameter is then not sent and the model uses its own default
	// (temperatures, for reasoning models that refuse any other).
	ModelDefault bool
	// Late marks a parameter added to a strategy after runs of it were
	// recorded: at its default Resolve leaves it out of the Values, so the
	// configurations that existed before keep their run keys and their
	// draws (both hash the Values) and stored runs resume as they began.
	// The constructor reads it through Values.WithDefaults.
	Late bool
}

// OtherParams, as a declared Param's Name, accepts the parameters the
// strategy does not declare (the program strategy hands them to its
// program): each is kept as a JSON value, and a --set string that reads as
// a JSON number, boolean or null as that value, so `--set k=5` and an
// experiment file's `k: 5` are one configuration.
const OtherParams = "*"

// otherValue is an undeclared parameter's value in its JSON form (numbers
// are float64), the same whether it came from --set, YAML or a stored run.
func otherValue(name string, x any) (any, error) {
	if s, ok := x.(string); ok {
		var v any
		if json.Unmarshal([]byte(s), &v) == nil {
			switch v.(type) {
			case float64, bool, nil:
				return v, nil
			}
		}
		return s, nil
	}
	b, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("parameter %s=%v: not a JSON value: %w", name, x, err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("parameter %s=%v: %w", name, x, err)
	}
	return v, nil
}

// ModelDefaultValue is the value of a ModelDefault parameter left to the
// model: `--set temperature=default`.
const ModelDefaultValue = "default"

// Bound is a helper for Param.Min and Param.Max.
func Bound(v float64) *float64 { return &v }

// Values are validated parameter values, keyed by name, with every declared
// parameter present.
type Values map[string]any

// Int returns an int parameter.
func (v Values) Int(name string) int { return get[int](v, name) }

// Float returns a float parameter.
func (v Values) Float(name string) float64 { return get[float64](v, name) }

// get reads a declared parameter. Values hold every declared parameter
// with its declared kind, so a miss is a misspelt or undeclared name in
// the strategy's code: the panic names it, and TestParamReadsAreDeclared
// finds it before any run does.
func get[T any](v Values, name string) T {
	x, ok := v[name].(T)
	if !ok {
		panic(fmt.Sprintf("strategy parameter %q: not declared, or not a %T (%v)", name, x, v[name]))
	}
	return x
}

// Temperature returns a ModelDefault float parameter as a request sends
// it: nil when left to the model's default.
func (v Values) Temperature(name string) *float64 {
	if v[name] == ModelDefaultValue {
		return nil
	}
	t := v.Float(name)
	return &t
}

// ModelDefaults lists the parameters left to the model's default.
func (v Values) ModelDefaults(decl []Param) []string {
	var out []string
	for _, p := range decl {
		if p.ModelDefault && v[p.Name] == ModelDefaultValue {
			out = append(out, p.Name)
		}
	}
	return out
}

// String returns a string parameter.
func (v Values) String(name string) string { return get[string](v, name) }

// Bool returns a bool parameter.
func (v Values) Bool(name string) bool { return get[bool](v, name) }

// JSON encodes the values with sorted keys (encoding/json sorts map keys).
func (v Values) JSON() json.RawMessage {
	b, _ := json.Marshal(map[string]any(v))
	return b
}

// Summary renders the values that differ from their defaults (and those
// marked Show), "k=10 b=5", in declaration order, for tables; "defaults"
// when none do. The full values are recorded with the run.
func (v Values) Summary(decl []Param) string {
	v = v.WithDefaults(decl) // a Late parameter left out is at its default
	var parts []string
	for _, p := range decl {
		if p.Name == OtherParams {
			parts = append(parts, others(v, decl)...)
			continue
		}
		if v[p.Name] != p.Default || p.Show {
			parts = append(parts, fmt.Sprintf("%s=%v", p.Name, v[p.Name]))
		}
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, " ")
}

// ParseSets turns ["k=10", "temperature=0.7"] into raw values.
func ParseSets(sets []string) (map[string]any, error) {
	raw := map[string]any{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("bad --set %q: want NAME=VALUE", s)
		}
		raw[k] = strings.TrimSpace(v)
	}
	return raw, nil
}

// Resolve validates raw values (strings from --set, or typed values from
// JSON/YAML) against the declaration and fills in defaults.
func Resolve(decl []Param, raw map[string]any) (Values, error) {
	byName := map[string]Param{}
	for _, p := range decl {
		byName[p.Name] = p
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	out := Values{}
	for _, k := range names {
		p, ok := byName[k]
		if _, open := byName[OtherParams]; !ok && open && k != OtherParams {
			v, err := otherValue(k, raw[k])
			if err != nil {
				return nil, err
			}
			out[k] = v
			continue
		}
		if !ok || k == OtherParams {
			return nil, fmt.Errorf("unknown parameter %q (known: %s)", k, paramNames(decl))
		}
		v, err := p.coerce(raw[k])
		if err != nil {
			return nil, err
		}
		if p.Late && v == p.Default {
			continue
		}
		out[k] = v
	}
	for _, p := range decl {
		if _, ok := out[p.Name]; !ok && !p.Late && p.Name != OtherParams {
			out[p.Name] = p.Default
		}
	}
	return out, nil
}

// WithDefaults returns a copy of v with every declared parameter present:
// the Late ones Resolve leaves out at their defaults filled in.
func (v Values) WithDefaults(decl []Param) Values {
	out := make(Values, len(v)+len(decl))
	for k, x := range v {
		out[k] = x
	}
	for _, p := range decl {
		if _, ok := out[p.Name]; !ok && p.Name != OtherParams {
			out[p.Name] = p.Default
		}
	}
	return out
}

// others renders the undeclared values of v, "name=value" by name.
func others(v Values, decl []Param) []string {
	declared := map[string]bool{}
	for _, p := range decl {
		declared[p.Name] = true
	}
	var out []string
	for k, x := range v {
		if !declared[k] {
			b, _ := json.Marshal(x)
			if s, ok := x.(string); ok {
				b = []byte(s)
			}
			out = append(out, k+"="+string(b))
		}
	}
	sort.Strings(out)
	return out
}

func paramNames(decl []Param) string {
	var n []string
	for _, p := range decl {
		n = append(n, p.Name)
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

func (p Param) coerce(x any) (any, error) {
	bad := func(why string) error {
		return fmt.Errorf("parameter %s=%v: %s", p.Name, x, why)
	}
	switch p.Kind {
	case Int:
		var n int
		switch t := x.(type) {
		case int:
			n = t
		case int64:
			n = int(t)
		case float64:
			if t != float64(int(t)) {
				return nil, bad("want a whole number")
			}
			n = int(t)
		case string:
			v, err := strconv.Atoi(t)
			if err != nil {
				return nil, bad("want a whole number")
			}
			n = v
		default:
			return nil, bad("want a whole number")
		}
		if err := p.inBounds(float64(n)); err != nil {
			return nil, err
		}
		return n, nil
	case Float:
		if p.ModelDefault && x == ModelDefaultValue {
			return ModelDefaultValue, nil
		}
		var f float64
		switch t := x.(type) {
		case float64:
			f = t
		case int:
			f = float64(t)
		case int64:
			f = float64(t)
		case string:
			v, err := strconv.ParseFloat(t, 64)
			if err != nil {
				if p.ModelDefault {
					return nil, bad("want a number or " + ModelDefaultValue)
				}
				return nil, bad("want a number")
			}
			f = v
		default:
			return nil, bad("want a number")
		}
		if err := p.inBounds(f); err != nil {
			return nil, err
		}
		return f, nil
	case Bool:
		switch t := x.(type) {
		case bool:
			return t, nil
		case string:
			v, err := strconv.ParseBool(t)
			if err != nil {
				return nil, bad("want true or false")
			}
			return v, nil
		}
		return nil, bad("want true or false")
	case String:
		s, ok := x.(string)
		if !ok {
			return nil, bad("want text")
		}
		if len(p.Allowed) > 0 && !slices.Contains(p.Allowed, s) {
			return nil, bad("want one of " + strings.Join(p.Allowed, ", "))
		}
		return s, nil
	}
	return nil, bad("undeclared kind " + string(p.Kind))
}

func (p Param) inBounds(f float64) error {
	if p.Min != nil && f < *p.Min {
		return fmt.Errorf("parameter %s=%v: must be at least %v", p.Name, f, *p.Min)
	}
	if p.Max != nil && f > *p.Max {
		return fmt.Errorf("parameter %s=%v: must be at most %v", p.Name, f, *p.Max)
	}
	return nil
}
