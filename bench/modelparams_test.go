package bench

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

func TestParseModelParam(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, name, value, err string
	}{
		{in: "reasoning_effort=high", name: "reasoning_effort", value: `"high"`},
		{in: "top_p=0.9", name: "top_p", value: "0.9"},
		{in: "logprobs=true", name: "logprobs", value: "true"},
		{in: `chat_template_kwargs={"enable_thinking": false}`, name: "chat_template_kwargs", value: `{"enable_thinking":false}`},
		{in: `stop_token_ids=[1, 2]`, name: "stop_token_ids", value: "[1,2]"},
		{in: `seed_label="42"`, name: "seed_label", value: `"42"`}, // a quoted number stays a string
		{in: "x= spaced value ", name: "x", value: `"spaced value"`},
		{in: "empty=", name: "empty", value: `""`},
		{in: "{broken=1", err: "want a request field name"},
		{in: "noequals", err: "want NAME=VALUE"},
		{in: "temperature=0", err: "use --set temperature"},
		{in: "n=2", err: "bench sets n itself"},
		{in: "stream=true", err: "bench reads whole responses"},
	} {
		name, v, err := ParseModelParam(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || name != tc.name || string(v) != tc.value {
			t.Errorf("%q = %s %s %v; want %s %s", tc.in, name, v, err, tc.name, tc.value)
		}
	}
}

// An experiment file's model: block sets the model, the API, thinking and
// parameters (merged over --param); its mistakes point at their line.
func TestExperimentModelBlock(t *testing.T) {
	t.Parallel()
	base := DefaultConfig()
	base.ModelParams = map[string]json.RawMessage{"top_k": json.RawMessage("20"), "reasoning_effort": json.RawMessage(`"low"`)}
	src := `task: game24
range: "900:902"
model:
  name: base-model
  api: completions
  think: keep
  think_tags: "[T],[/T]"
  max_tokens_field: max_tokens
  params:
    reasoning_effort: high
    chat_template_kwargs: {enable_thinking: false}
strategies:
  - cot: {k: 2}
`
	exp, err := ParseExperiment("m.yaml", []byte(src), base, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := exp.Runs[0]
	if c.Model != "base-model" || c.API != llm.APICompletions || c.Think != llm.ThinkKeep || c.ThinkTags != "[T],[/T]" || c.MaxTokensField != "max_tokens" {
		t.Errorf("config %+v", c)
	}
	if got := ModelParamsText(c.ModelParams); got != `chat_template_kwargs={"enable_thinking":false} reasoning_effort=high top_k=20` {
		t.Errorf("params %s", got)
	}
	if len(base.ModelParams) != 2 || string(base.ModelParams["reasoning_effort"]) != `"low"` {
		t.Error("the file changed the --param map it merged over")
	}
	if got := ModelSettingsText(c); got != `api=completions chat_template_kwargs={"enable_thinking":false} reasoning_effort=high top_k=20 think=keep` {
		t.Errorf("settings %q", got)
	}
	// A separate judge shows with the settings, so a table names it.
	j := DefaultConfig()
	j.JudgeModel, j.JudgeBaseURL = "gpt-4", "http://user:key@127.0.0.1:9/v1"
	if got := ModelSettingsText(j); !strings.Contains(got, "judge=gpt-4@") || strings.Contains(got, "key") {
		t.Errorf("settings with a judge %q: want the judge named, its credentials not", got)
	}
	if got := ModelSettingsText(DefaultConfig()); got != "" {
		t.Errorf("default settings %q, want none", got)
	}

	for _, tc := range []struct{ src, want string }{
		{"task: game24\nmodel:\n  nmae: x\nstrategies: [{cot: {}}]\n", "x.yaml:3: unknown key model.nmae (allowed: name, api"},
		{"task: game24\nmodel:\n  params: [1]\nstrategies: [{cot: {}}]\n", "x.yaml:3: model.params: want a mapping"},
		{"task: game24\nmodel:\n  params: {temperature: 0}\nstrategies: [{cot: {}}]\n", "x.yaml:3: model.params: --param temperature: bench sets temperature itself"},
		{"task: game24\nmodel:\n  api: responses\nstrategies: [{cot: {}}]\n", `--api "responses"`},
		{"task: hotpotqa\nmodel:\n  api: completions\nstrategies: [{react: {}}]\n", "strategy react needs --api chat"},
	} {
		_, err := ParseExperiment("x.yaml", []byte(tc.src), DefaultConfig(), 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %q", tc.src, err, tc.want)
		}
	}
}

// The API, model parameters and how thinking is read are part of the
// configuration key; their defaults leave the keys of older runs as they were.
func TestConfigKeyModelSettings(t *testing.T) {
	t.Parallel()
	key := func(c Config) string {
		t.Helper()
		p, err := load(c)
		if err != nil {
			t.Fatal(err)
		}
		return p.configKey()
	}
	c := DefaultConfig()
	c.Task, c.Strategy, c.Range = "game24", "cot", "900:901"
	plain := key(c)
	explicit := c
	explicit.API, explicit.Think, explicit.ThinkTags = llm.APIChat, llm.ThinkSplit, "think"
	if key(explicit) != plain {
		t.Error("the default settings changed the key")
	}
	seen := map[string]string{plain: "defaults"}
	for name, mod := range map[string]func(*Config){
		"api":        func(c *Config) { c.API = llm.APICompletions },
		"think keep": func(c *Config) { c.Think = llm.ThinkKeep },
		"tags":       func(c *Config) { c.ThinkTags = "reasoning" },
		"params":     func(c *Config) { c.ModelParams = map[string]json.RawMessage{"top_p": json.RawMessage("0.9")} },
	} {
		m := c
		mod(&m)
		k := key(m)
		if prev, ok := seen[k]; ok {
			t.Errorf("%s has the key of %s", name, prev)
		}
		seen[k] = name
	}
}
