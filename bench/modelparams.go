package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/reasonbench/reasonbench/runinfo"
	"regexp"
	"strings"
)

// paramName is a request body field's name.
var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// harnessFields are the request fields the harness sets itself, with the
// setting that controls each: --param may not override them.
var harnessFields = map[string]string{
	"model":                 "--model",
	"messages":              "the strategy's prompts",
	"prompt":                "the strategy's prompts",
	"tools":                 "the strategy (react protocol=tools)",
	"n":                     "the strategy's sample counts (--set k=..., n_generate, n_evaluate)",
	"seed":                  "--seed",
	"stop":                  "the strategy",
	"temperature":           "--set temperature=VALUE or --set temperature=default",
	"max_tokens":            "--set max_tokens=N and --max-tokens-field",
	"max_completion_tokens": "--set max_tokens=N and --max-tokens-field",
	"stream":                "nothing: bench reads whole responses",
	"stream_options":        "nothing: bench reads whole responses",
}

// ParseModelParam reads --param NAME=VALUE: a VALUE that is JSON (a
// number, true, an object like {"enable_thinking":false}, a quoted string)
// is sent as that JSON, anything else as a string.
func ParseModelParam(s string) (string, json.RawMessage, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", nil, fmt.Errorf("--param %q: want NAME=VALUE, e.g. reasoning_effort=high or chat_template_kwargs={\"enable_thinking\":false}", s)
	}
	v := []byte(strings.TrimSpace(value))
	var raw json.RawMessage
	if json.Valid(v) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return "", nil, fmt.Errorf("--param %s: %w", name, err)
		}
		raw = buf.Bytes()
	} else {
		raw, _ = json.Marshal(strings.TrimSpace(value))
	}
	if err := checkModelParam(name, raw); err != nil {
		return "", nil, err
	}
	return name, raw, nil
}

// ParseModelParams reads repeated --param flags; a later one for the same
// name wins.
func ParseModelParams(specs []string) (map[string]json.RawMessage, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]json.RawMessage{}
	for _, s := range specs {
		name, v, err := ParseModelParam(s)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// checkModelParam refuses names the harness sets itself (naming the
// setting to use instead), malformed names and values that are not JSON.
func checkModelParam(name string, v json.RawMessage) error {
	if !paramName.MatchString(name) {
		return fmt.Errorf("--param %q: want a request field name (letters, digits, _)", name)
	}
	if how, ok := harnessFields[name]; ok {
		return fmt.Errorf("--param %s: bench sets %s itself; use %s", name, name, how)
	}
	if !json.Valid(v) {
		return fmt.Errorf("--param %s: value is not JSON", name)
	}
	return nil
}

// ModelParamsText renders model parameters for tables (runinfo.ModelParamsText).
func ModelParamsText(m map[string]json.RawMessage) string { return runinfo.ModelParamsText(m) }

// ModelSettingsText says how a configuration calls the model where that is
// not the default and can change its answers: the API, the model
// parameters, how thinking is read and a judge of its own ("" for the
// defaults); readers render a recorded spec the same way (runinfo).
func ModelSettingsText(c Config) string {
	m := runinfo.ModelSettings{API: c.API, ModelParams: c.ModelParams, Think: c.Think, ThinkTags: c.ThinkTags}
	if c.SeparateJudge() { // the judge that scored a judged task's outputs
		m.JudgeModel, m.JudgeURL = c.Judge()
	}
	return m.Text()
}

// paramValueText is a parameter's value as --param takes it.
func paramValueText(v json.RawMessage) string { return runinfo.ParamValueText(v) }
