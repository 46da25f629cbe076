package action

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in            string
		thought, act, input string
		err                 string
	}{
		{name: "plain", in: "Thought: I need Paris.\nAction: Search[Paris]", thought: "I need Paris.", act: "Search", input: "Paris"},
		{name: "hyphenated tool", in: "Thought: add.\nAction: Get-sum[2, 3]", thought: "add.", act: "Get-sum", input: "2, 3"},
		{name: "bare hyphenated", in: "get-sum[2, 3]", thought: "", act: "get-sum", input: "2, 3"},
		{name: "numbered", in: "Thought 2: next.\nAction 2: Lookup[capital]", thought: "next.", act: "Lookup", input: "capital"},
		{name: "spacing", in: "  thought :   spaced out  \n   action:   search  [ New  York ]  ", thought: "spaced out", act: "search", input: "New  York"},
		{name: "case", in: "THOUGHT: shout\nACTION: FINISH[YES]", thought: "shout", act: "FINISH", input: "YES"},
		{name: "missing bracket", in: "Thought: t\nAction: Finish[Bath, Maine", thought: "t", act: "Finish", input: "Bath, Maine"},
		{name: "missing bracket, more lines", in: "Action: Search[Paris\nObservation: invented", act: "Search", input: "Paris"},
		{name: "bracket on later line", in: "Action: Finish[\n  Copenhagen\n]", act: "Finish", input: "Copenhagen"},
		{name: "nested brackets", in: "Action: Finish[Blic [newspaper]] because", act: "Finish", input: "Blic [newspaper]"},
		{name: "prose after", in: "Thought: go\nAction: Search[Paris] to see what it says.\nThen I will finish.", thought: "go", act: "Search", input: "Paris"},
		{name: "hallucinated steps ignored", in: "Thought: a\nAction: Search[A]\nObservation: fake\nThought: b\nAction: Finish[B]", thought: "a", act: "Search", input: "A"},
		{name: "colon form", in: "Action: Search: Eiffel Tower", act: "Search", input: "Eiffel Tower"},
		{name: "bare form", in: "Action: search Eiffel Tower", act: "search", input: "Eiffel Tower"},
		{name: "parentheses", in: "Action: search(Eiffel Tower)", act: "search", input: "Eiffel Tower"},
		{name: "markdown", in: "**Thought:** bold\n**Action:** `Search[Paris]`", thought: "bold", act: "Search", input: "Paris"},
		{name: "no label", in: "I should look this up.\nSearch[Paris]", thought: "I should look this up.", act: "Search", input: "Paris"},
		{name: "multi-line thought", in: "Thought: one\ntwo\nAction: Lookup[x]", thought: "one\ntwo", act: "Lookup", input: "x"},
		{name: "no thought", in: "Action: Finish[no]", act: "Finish", input: "no"},
		{name: "empty brackets", in: "Action: Finish[]", act: "Finish", input: ""},
		{name: "crlf", in: "Thought: w\r\nAction: Search[Paris]\r\n", thought: "w", act: "Search", input: "Paris"},
		{name: "multi-argument", in: "Action: Add[4, 5]", act: "Add", input: "4, 5"},
		{name: "unicode", in: "Thought: é\nAction: Search[Jørn Utzon]", thought: "é", act: "Search", input: "Jørn Utzon"},
		{name: "empty", in: "", err: "no \"Action:\" line"},
		{name: "only a thought", in: "Thought: I am thinking.", thought: "I am thinking.", err: "no \"Action:\" line"},
		{name: "empty action line", in: "Thought: t\nAction:   ", thought: "t", err: "Action line is empty"},
		{name: "no action name", in: "Action: [Paris]", err: "no action name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseText(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q (action %+v)", err, c.err, a)
				}
			} else if err != nil {
				t.Fatalf("error %v", err)
			}
			if a.Thought != c.thought || a.Name != c.act || a.Input != c.input {
				t.Errorf("got thought %q action %q input %q; want %q %q %q", a.Thought, a.Name, a.Input, c.thought, c.act, c.input)
			}
		})
	}
}

func TestParseJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in            string
		thought, act, input string
		args                string
		err                 string
	}{
		{name: "plain", in: `{"thought": "t", "action": "search", "input": "Paris"}`, thought: "t", act: "search", input: "Paris"},
		{name: "code fence", in: "Here you go:\n```json\n{\"thought\": \"t\", \"action\": \"finish\", \"input\": \"yes\"}\n```\nDone.", thought: "t", act: "finish", input: "yes"},
		{name: "fence without language", in: "```\n{\"action\": \"lookup\", \"input\": \"born\"}\n```", act: "lookup", input: "born"},
		{name: "trailing prose", in: `{"action": "search", "input": "Rome"} I hope this helps {`, act: "search", input: "Rome"},
		{name: "leading prose with braces", in: `I think {maybe} this: {"action": "search", "input": "Rome"}`, act: "search", input: "Rome"},
		{name: "key case and synonyms", in: `{"Thought": "x", "Action": "search", "Action_Input": "Oslo"}`, thought: "x", act: "search", input: "Oslo"},
		{name: "args synonym", in: `{"tool": "add", "args": {"a": 4, "b": 5}}`, act: "add", args: `{"a": 4, "b": 5}`},
		{name: "object input", in: `{"action": "add", "input": {"a": "4", "b": "5"}}`, act: "add", args: `{"a": "4", "b": "5"}`},
		{name: "array input", in: `{"action": "add", "input": [4, "5"]}`, act: "add", input: "4, 5"},
		{name: "number input", in: `{"action": "finish", "input": 1978}`, act: "finish", input: "1978"},
		{name: "null input", in: `{"action": "finish", "input": null}`, act: "finish"},
		{name: "action with brackets", in: `{"thought": "t", "action": "Search[Paris]"}`, thought: "t", act: "Search", input: "Paris"},
		{name: "non-string thought", in: `{"thought": ["a"], "action": "search", "input": "x"}`, thought: `["a"]`, act: "search", input: "x"},
		{name: "malformed", in: `{"thought": "t", "action": "search", "input": "Paris"`, err: "malformed JSON"},
		{name: "single quotes", in: `{'action': 'search'}`, err: "malformed JSON"},
		{name: "no object", in: "Search[Paris]", err: "no JSON object found"},
		{name: "empty", in: "", err: "no JSON object found"},
		{name: "no action", in: `{"thought": "t", "input": "x"}`, thought: "t", err: `no "action"`},
		{name: "action not a string", in: `{"action": 3}`, err: `"action" must be a non-empty string`},
		{name: "empty action", in: `{"action": "  "}`, err: `"action" must be a non-empty string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseJSON(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q (action %+v)", err, c.err, a)
				}
			} else if err != nil {
				t.Fatalf("error %v", err)
			}
			if a.Thought != c.thought || a.Name != c.act || a.Input != c.input || string(a.Args) != c.args {
				t.Errorf("got %q %q %q %s; want %q %q %q %s", a.Thought, a.Name, a.Input, a.Args, c.thought, c.act, c.input, c.args)
			}
		})
	}
}

func TestParsersBoundTheirWork(t *testing.T) {
	t.Parallel()
	huge := "Thought: " + strings.Repeat("x", 1<<20) + "\nAction: Search[far away]"
	if a, err := ParseText(huge); err == nil || len(a.Thought) > MaxParse {
		t.Errorf("1 MiB reply: action %q err %v (the action lies beyond the parse limit)", a.Name, err)
	}
	many := strings.Repeat("{", 1<<16) + `{"action": "search"}`
	if _, err := ParseJSON(many); err == nil {
		t.Error("65536 braces: no error")
	}
}

var parseSeeds = []string{
	"Thought: I need Paris.\nAction: Search[Paris]",
	"Action 3: Finish[Blic [newspaper]] and more",
	"Action: Finish[\n\n",
	"**Action:** `Lookup[born`",
	"Search[",
	"Action: (((",
	"Thought: \xff\xfe\nAction: Search[\xff]",
	`{"thought": "t", "action": "search", "input": "Paris"}`,
	"```json\n{\"action\": \"finish\", \"input\": [1, {\"a\": 2}]}\n```",
	`{"action": "Search[x"}`,
	`{"action": "add", "input": {"a": 1e400}}`,
	"```\n```\n```json\n",
	"{{{{}}}}",
}

func FuzzParseText(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseText(s)
		if err == nil && a.Name == "" {
			t.Fatalf("no error and no action name for %q", s)
		}
		for _, v := range []string{a.Thought, a.Name, a.Input} {
			if !utf8.ValidString(v) {
				t.Fatalf("invalid UTF-8 in %+v", a)
			}
			if len(v) > len(s)+3*MaxParse/2 {
				t.Fatalf("output longer than input: %d > %d", len(v), len(s))
			}
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseJSON(s)
		if err == nil && strings.TrimSpace(a.Name) == "" {
			t.Fatalf("no error and no action name for %q", s)
		}
		if a.Args != nil && !json.Valid(a.Args) {
			t.Fatalf("Args is not valid JSON: %s", a.Args)
		}
	})
}
