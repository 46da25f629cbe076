package action

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseXML(t *testing.T) {
	t.Parallel()
	schema := func(name string) json.RawMessage {
		if name == "book" {
			return json.RawMessage(`{"properties": {"zip": {"type": "string"}, "n": {"type": "integer"}, "ok": {"type": "boolean"}, "items": {"type": "array"}}}`)
		}
		return nil
	}
	cases := []struct {
		reply, name, args, thought string
		err                        bool
	}{
		{"<book>\n<zip>02139</zip>\n<n>3</n>\n<ok>true</ok>\n<items>[1, 2]</items>\n</book>", "book", `{"zip":"02139","n":3,"ok":true,"items":[1, 2]}`, "", false},
		{"<thinking>why</thinking>\n<book><n>three</n></book>", "book", `{"n":"three"}`, "why", false},
		{"I will search.\n<search><query>a < b & c</query></search>", "search", `{"query":"a < b & c"}`, "I will search.", false},
		{"<other><n>3</n><s>x</s></other>", "other", `{"n":3,"s":"x"}`, "", false},
		{"<end_call></end_call>", "end_call", `{}`, "", false},
		{"<open>no close", "", "", "", true},
		{"no tags at all", "", "", "", true},
		{"<1bad>x</1bad>", "", "", "", true},
	}
	for _, tc := range cases {
		act, err := ParseXML(tc.reply, schema)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v", tc.reply, err)
			continue
		}
		if err == nil && (act.Name != tc.name || string(act.Args) != tc.args || act.Thought != tc.thought) {
			t.Errorf("%q: %q %s %q, want %q %s %q", tc.reply, act.Name, act.Args, act.Thought, tc.name, tc.args, tc.thought)
		}
	}
}

func FuzzParseXML(f *testing.F) {
	for _, s := range []string{"<a><b>1</b></a>", "<thinking>x</thinking><t><p>[1]</p></t>", "<<<>>>", "<a><a></a></a>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		act, err := ParseXML(s, nil)
		if err != nil {
			return
		}
		// A tool call read is always a tag of the reply with JSON object
		// arguments.
		if !strings.Contains(s, "<"+act.Name+">") || !strings.Contains(s, "</"+act.Name+">") {
			t.Fatalf("%q: read tool %q that is not a closed element", s, act.Name)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(act.Args, &m); err != nil {
			t.Fatalf("%q: arguments %s are not a JSON object: %v", s, act.Args, err)
		}
	})
}
