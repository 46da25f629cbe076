package game24

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
)

func toolsFor(t *testing.T, puzzle string) map[string]tasks.Tool {
	t.Helper()
	nums, err := ParsePuzzle(puzzle)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := NewTask().Tools(tasks.Instance{Input: puzzle, Data: Puzzle{Numbers: nums}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]tasks.Tool{}
	for _, tool := range ts {
		if !json.Valid(tool.Schema()) {
			t.Errorf("%s: schema %s", tool.Name, tool.Schema())
		}
		out[tool.Name] = tool
	}
	return out
}

func TestToolsExactArithmetic(t *testing.T) {
	type call struct {
		tool, args string
		obs        string // exact observation, or a prefix ending in "…"
		refused    bool
		final      bool
	}
	cases := []struct {
		name   string
		puzzle string
		calls  []call
		output string
	}{
		{"a solution", "4 5 6 10", []call{
			{"multiply", `{"a": "4", "b": "5"}`, "4 * 5 = 20 (left: 6 10 20)", false, false},
			{"add", `{"a": "20", "b": "10"}`, "20 + 10 = 30 (left: 6 30)", false, false},
			{"subtract", `{"a": "30", "b": "6"}`, "30 - 6 = 24 (left: 24)", false, false},
			{"finish", `{"expression": "(4 * 5 + 10) - 6 = 24"}`, "Episode finished.", false, true},
		}, "Answer: (4 * 5 + 10) - 6 = 24"},
		{"fractions stay exact", "1 3 4 6", []call{
			{"divide", `{"a": "3", "b": "4"}`, "3 / 4 = 3/4 (left: 3/4 1 6)", false, false},
			{"subtract", `{"a": "1", "b": "3/4"}`, "1 - 3/4 = 1/4 (left: 1/4 6)", false, false},
			{"divide", `{"a": 6, "b": "(1/4)"}`, "6 / 1/4 = 24 (left: 24)", false, false},
			{"finish", `{"expression": "6 / (1 - 3 / 4)"}`, "Episode finished.", false, true},
		}, "Answer: 6 / (1 - 3 / 4) = 24"},
		{"a rounded decimal names a fraction", "1 3 8 8", []call{
			{"divide", `{"a": "8", "b": "3"}`, "8 / 3 = 8/3 (left: 1 8/3 8)", false, false},
			{"multiply", `{"a": "2.67", "b": "1"}`, "8/3 * 1 = 8/3 (left: 8/3 8)", false, false},
		}, ""},
		{"numbers not on the board", "4 5 6 10", []call{
			{"add", `{"a": "7", "b": "5"}`, "Error: 7 is not on the board [4 5 6 10].", true, false},
			{"add", `{"a": "4", "b": "4"}`, "Error: 4 is not on the board [4 5 6 10] (besides the 4 used as a).", true, false},
			{"add", `{"a": "4", "b": "5"}`, "4 + 5 = 9 (left: 6 9 10)", false, false},
			{"add", `{"a": "4", "b": "6"}`, "Error: 4 is not on the board [6 9 10].", true, false},
			{"multiply", `{"a": "1e9", "b": "6"}`, `Error: "1e9" is not a number`, true, false},
			{"multiply", `{"a": "six", "b": "6"}`, `Error: "six" is not a number`, true, false},
		}, ""},
		{"duplicates are separate entries", "4 4 6 8", []call{
			{"subtract", `{"a": "4", "b": "4"}`, "4 - 4 = 0 (left: 0 6 8)", false, false},
			{"divide", `{"a": "6", "b": "0"}`, "Error: division by zero.", true, false},
			{"divide", `{"a": "0", "b": "6"}`, "0 / 6 = 0 (left: 0 8)", false, false},
		}, ""},
		{"bad arguments", "4 5 6 10", []call{
			{"add", `{"a": "4"}`, `Invalid arguments for add: missing "b"`, true, false},
			{"add", `not json`, `Invalid arguments for add: malformed JSON`, true, false},
			{"add", `{"a": "-4", "b": "5"}`, `Error: -4 is not on the board`, true, false},
			{"finish", `{"expression": ""}`, "Error: finish needs an expression", true, false},
			{"finish", `{"expression": "(4 + "}`, "Error: cannot read the expression", true, false},
			{"finish", `{"expression": "` + strings.Repeat("1+", 600) + `1"}`, "Error: the expression is too long", true, false},
			// finish does not judge: a wrong expression still ends the task.
			{"finish", `{"expression": "4 + 5 + 6 + 10"}`, "Episode finished.", false, true},
		}, "Answer: 4 + 5 + 6 + 10 = 24"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tools := toolsFor(t, c.puzzle)
			var output string
			for i, k := range c.calls {
				res, err := tools[k.tool].Call(context.Background(), json.RawMessage(k.args))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(res.Observation, k.obs) || res.Refused != k.refused || res.Final != k.final {
					t.Errorf("call %d %s %s: %+v, want %q refused=%v final=%v", i, k.tool, k.args, res, k.obs, k.refused, k.final)
				}
				if res.Final {
					output = res.Output
				}
			}
			if output != c.output {
				t.Errorf("output %q, want %q", output, c.output)
			}
		})
	}
}

func TestToolsOutputIsScoredByCheck(t *testing.T) {
	tools := toolsFor(t, "4 5 6 10")
	res, _ := tools["finish"].Call(context.Background(), json.RawMessage(`{"expression": "4 * 5 + 10 - 6"}`))
	if v := Check([]int{4, 5, 6, 10}, res.Output); !v.Correct {
		t.Errorf("%q: %+v", res.Output, v)
	}
	res, _ = tools["finish"].Call(context.Background(), json.RawMessage(`{"expression": "4 * 5 + 10 + 6"}`))
	if v := Check([]int{4, 5, 6, 10}, res.Output); v.Correct {
		t.Errorf("%q judged correct", res.Output)
	}
}

func TestToolsAreFreshPerTrajectory(t *testing.T) {
	a := toolsFor(t, "4 5 6 10")
	if res, _ := a["add"].Call(context.Background(), json.RawMessage(`{"a":"4","b":"5"}`)); res.Refused {
		t.Fatal(res.Observation)
	}
	b := toolsFor(t, "4 5 6 10")
	if res, _ := b["add"].Call(context.Background(), json.RawMessage(`{"a":"4","b":"5"}`)); res.Refused {
		t.Errorf("second trajectory shares the board: %s", res.Observation)
	}
	if _, err := NewTask().Tools(tasks.Instance{Input: "no numbers"}); err == nil {
		t.Error("instance without numbers accepted")
	}
}
