package action

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseEpisode(t *testing.T) {
	t.Parallel()
	cases := []struct {
		reply, name, args, say, thought, err string
	}{
		{"Action:\n{\"name\": \"get\", \"arguments\": {\"a\": 1}}", "get", `{"a": 1}`, "", "", ""},
		{"Thought:\nhm\nAction:\n{\"name\": \"get\", \"arguments\": {}}", "get", `{}`, "", "hm", ""},
		{"just talking", "", "", "just talking", "", ""},
		{"Action: {\"name\": \"x\", \"arguments\": {}} Action: plain", "", "", "plain", "", ""},
		{"Thought: first\nAction: a\nAction: {\"name\": \"x\", \"arguments\": {}}", "x", `{}`, "", "first", ""},
		{"Action: {\"name\": \"\", \"arguments\": {}}", "", `{}`, "", "", ""}, // a tool call, though unnamed: not said
		{"Action: NaN", "", "", "NaN", "", ""},
		{"Action: {\"name\": 3, \"arguments\": {}}", "", "", "", "", "not a string"},
		{"Action: {\"arguments\": {}}", "", "", "", "", "lacks"},
		{"Action: {\"name\": \"x\", \"arguments\": 5}", "", "", "", "", "not an object"},
		{"Action: {\"name\": \"x\", \"arguments\": null}", "", "", "", "", "not an object"},
		{"Action: 42", "", "", "", "", "not an object"},
		{"Action: null", "", "", "", "", "not an object"},
		{"", "", "", "", "", ""},
	}
	for _, tc := range cases {
		act, err := ParseEpisode(tc.reply)
		if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.reply, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if act.Name != tc.name || string(act.Args) != tc.args || act.Thought != tc.thought {
			t.Errorf("%q: %q %s %q, want %q %s %q", tc.reply, act.Name, act.Args, act.Thought, tc.name, tc.args, tc.thought)
		}
		if (act.Args == nil) != (tc.args == "") || act.Args == nil && act.Input != tc.say {
			t.Errorf("%q: said %v %q, want %q", tc.reply, act.Args == nil, act.Input, tc.say)
		}
	}
}

// FuzzParseEpisode: any reply is a tool call with object arguments that
// the reply contains, text to say that the reply contains, or an error.
func FuzzParseEpisode(f *testing.F) {
	for _, s := range []string{"Action: {\"name\": \"a\", \"arguments\": {}}", "Thought: x\nAction: hi", "Action: [1]", "Action:Action:{}", "Action: {\"name\": \"a\", \"arguments\": 5}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		act, err := ParseEpisode(s)
		if err != nil {
			return
		}
		if !strings.Contains(s, act.Thought) {
			t.Fatalf("%q: thought %q is not in the reply", s, act.Thought)
		}
		if act.Args == nil {
			if !strings.Contains(s, act.Input) || strings.TrimSpace(act.Input) != act.Input {
				t.Fatalf("%q: said %q, not trimmed text of the reply", s, act.Input)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(act.Args, &m); err != nil || m == nil {
			t.Fatalf("%q: arguments %s are not a JSON object: %v", s, act.Args, err)
		}
		if !strings.Contains(s, string(act.Args)) || act.Input != "" {
			t.Fatalf("%q: arguments %s not from the reply, or text to say %q beside a call", s, act.Args, act.Input)
		}
	})
}
