package reading

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
)

func viewOf(t *testing.T, strategy string, detail any) ItemView {
	t.Helper()
	b, err := json.Marshal(detail)
	if err != nil {
		t.Fatal(err)
	}
	return Of(strategy).ViewOf(b)
}

// turnsText writes a thread's turns as role[step]:what, for comparison.
func turnsText(th Thread) []string {
	var out []string
	for _, t := range th.Turns {
		s := t.Role
		if t.Step > 0 {
			s += "[" + string(rune('0'+t.Step)) + "]"
		}
		switch t.Role {
		case "tool":
			s += ":" + t.Tool + " " + t.Arguments + " -> " + t.Result
			if t.Error {
				s += " !"
			}
		default:
			s += ":" + t.Thought + "|" + t.Text
		}
		out = append(out, s)
	}
	return out
}

// TestConversationOfReAct: a react item's conversation is its steps in
// order, each thought then each action with its observation (an MCP call
// by server and tool, its arguments as sent), then the answer.
func TestConversationOfReAct(t *testing.T) {
	tr := ReActTrajectory{Protocol: "tools", Finished: true, Output: "13", Steps: []ReActStep{
		{Step: 1, Thought: "add them", Actions: []ReActAction{{Tool: "calc_get-sum", Call: `calc_get-sum {"a":1}`, Observation: "The sum is 13.",
			External: &events.ToolCall{Server: "calc", Tool: "get-sum", Arguments: json.RawMessage(`{"a":1,"b":12}`)}}}},
		{Step: 2, Reply: "garbage", Actions: []ReActAction{{Call: "Bogus[x]", Observation: "Invalid action.", Invalid: true}}},
	}}
	v := viewOf(t, "react", tr)
	if v.Conversation == nil || len(v.Conversation.Threads) != 1 || v.Trajectory == nil {
		t.Fatalf("view %+v", v)
	}
	th := v.Conversation.Threads[0]
	want := []string{"assistant[1]:add them|", `tool[1]:calc get-sum {"a":1,"b":12} -> The sum is 13.`, "assistant[2]:|garbage",
		"tool[2]: Bogus[x] -> Invalid action. !", "assistant[2]:|13"}
	if got := turnsText(th); !reflect.DeepEqual(got, want) || th.Note != "finished" {
		t.Errorf("turns (%s):\n%q\nwant\n%q", th.Note, got, want)
	}
}

// TestConversationOfEpisodes: each episode is a thread of the user's and
// the agent's messages and its tool calls in order, the reward's parts as
// facts, and the gold actions beside the tool calls taken.
func TestConversationOfEpisodes(t *testing.T) {
	info := `{"reward": 0.0, "info": {"r_actions": 0.0, "gt_data_hash": "ab12"}, "actions": [{"name": "get_user", "kwargs": {"id": "u1"}}, {"name": "cancel", "kwargs": {"order": "#1"}}]}`
	d := ReActEpisodes{Protocol: "tools", Trials: []EpisodeTrial{{Trial: 0, Reward: 0, HitLimit: true,
		Outcome: events.Outcome{Info: json.RawMessage(info)},
		Turns: []EpisodeTurn{
			{Role: "user", Content: "cancel my order"},
			{Role: "tool", Tool: "get_user", Arguments: json.RawMessage(`{"id": "u1"}`), Result: `{"name":"A"}`, Step: 1, Thought: "look up"},
			{Role: "agent", Content: "which order?", Step: 2},
			{Role: "user", Content: "#2", Step: 2},
			{Role: "tool", Tool: "cancel", Arguments: json.RawMessage(`{"order":"#2"}`), Result: "Error: no such order", Error: true, Step: 3},
		}}}}
	v := viewOf(t, "react", d)
	if v.Conversation == nil || v.Trajectory != nil || len(v.Conversation.Threads) != 1 {
		t.Fatalf("view %+v", v)
	}
	th := v.Conversation.Threads[0]
	want := []string{"user:|cancel my order", `tool[1]:get_user {"id":"u1"} -> {"name":"A"}`, "assistant[2]:|which order?", "user[2]:|#2",
		`tool[3]:cancel {"order":"#2"} -> Error: no such order !`}
	if got := turnsText(th); !reflect.DeepEqual(got, want) {
		t.Errorf("turns:\n%q\nwant\n%q", got, want)
	}
	if th.Title != "episode 0" || th.Note != "reward 0, hit the step limit" {
		t.Errorf("title %q note %q", th.Title, th.Note)
	}
	if want := []Fact{{"reward", "0"}, {"gt_data_hash", `"ab12"`}, {"r_actions", "0"}}; !reflect.DeepEqual(th.Facts, want) {
		t.Errorf("facts %+v, want %+v", th.Facts, want)
	}
	if !reflect.DeepEqual(th.Gold, []string{`get_user({"id":"u1"})`, `cancel({"order":"#1"})`}) ||
		!reflect.DeepEqual(th.Taken, []string{`get_user({"id":"u1"})`, `cancel({"order":"#2"})`}) {
		t.Errorf("gold %q, taken %q", th.Gold, th.Taken)
	}
	text := v.Conversation.Lines()
	for _, s := range []string{"episode 0 (reward 0, hit the step limit):", "gold actions: get_user", "actions taken: get_user", "outcome r_actions = 0"} {
		if !strings.Contains(text, s) {
			t.Errorf("Lines lacks %q:\n%s", s, text)
		}
	}
	// Hostile info: not JSON is one fact; no actions, no gold and no taken.
	d.Trials[0].Outcome.Info = json.RawMessage(`"not an object"`)
	th = viewOf(t, "react", d).Conversation.Threads[0]
	if len(th.Facts) != 1 || th.Gold != nil || th.Taken != nil {
		t.Errorf("facts %+v gold %v taken %v", th.Facts, th.Gold, th.Taken)
	}
}

// TestConversationOfReflexionAndDebate: reflexion's trials are threads
// with the reflections each was shown; debate's agents are threads of
// their answers, round by round.
func TestConversationOfReflexionAndDebate(t *testing.T) {
	r := ReflexionDetail{Trials: []ReflexionTrial{
		{Trial: 1, Trajectory: "tried A", Judgement: "wrong", Reflection: "try B"},
		{Trial: 2, Trajectory: "tried B", Correct: true, ShownReflections: 1},
	}}
	c := viewOf(t, "reflexion", r).Conversation
	if c == nil || len(c.Threads) != 2 {
		t.Fatalf("reflexion conversation %+v", c)
	}
	if got, want := turnsText(c.Threads[1]), []string{"reflection:|try B", "assistant:|tried B"}; !reflect.DeepEqual(got, want) || c.Threads[1].Note != "correct" {
		t.Errorf("trial 2: %q (%s), want %q", got, c.Threads[1].Note, want)
	}
	if got := turnsText(c.Threads[0]); len(got) != 3 || got[2] != "reflection:|try B" {
		t.Errorf("trial 1: %q", got)
	}
	k := "24"
	d := DebateDetail{Agents: 2, Rounds: []DebateRound{
		{Turns: []DebateTurn{{Output: "a0 r0", Key: &k}, {Output: "a1 r0"}}},
		{Turns: []DebateTurn{{Output: "a0 r1", Correct: true}, {Output: "a1 r1"}}},
	}}
	c = viewOf(t, "debate", d).Conversation
	if c == nil || len(c.Threads) != 2 {
		t.Fatalf("debate conversation %+v", c)
	}
	if got := turnsText(c.Threads[0]); !reflect.DeepEqual(got, []string{"assistant:|a0 r0", "assistant[1]:|a0 r1"}) || c.Threads[0].Note != "correct in the last round" {
		t.Errorf("agent 0: %q %s", got, c.Threads[0].Note)
	}
}

// TestCandidatesView: bon's (beam's, dvts's) item view is its candidates
// with their scores and each rule's pick.
func TestCandidatesView(t *testing.T) {
	k := "5"
	d := TTSDetail{Select: "best", Agg: "last", Pick: 1, Picks: map[string]int{"best": 1, "majority": 0},
		Candidates: []Candidate{{Output: "x", Key: &k, Scores: []float64{0.2, 0.4}, Score: 0.4}, {Output: "y", Scores: []float64{0.9}, Score: 0.9, Correct: true}}}
	for _, s := range []string{"bon", "beam", "dvts"} {
		v := viewOf(t, s, d)
		if v.Candidates == nil || v.Candidates.Pick != 1 || len(v.Candidates.List) != 2 || v.Candidates.List[0].Scores[1] != 0.4 || v.Candidates.Picks["majority"] != 0 {
			t.Errorf("%s: candidates %+v", s, v.Candidates)
		}
	}
	if v := viewOf(t, "bon", map[string]any{"candidates": "garbage"}); v.Candidates != nil {
		t.Errorf("garbage detail drew candidates %+v", v.Candidates)
	}
}
