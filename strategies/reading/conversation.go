package reading

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Conversation is an item's exchange as the read side draws it (the
// viewer's item page, bench show): one thread or more (a trajectory, an
// episode, a trial, a debate agent's answers), each its turns in order.
// A strategy's View reader fills it from its own detail.
type Conversation struct {
	Threads []Thread
}

// Thread is one conversation of an item.
type Thread struct {
	Title string // "trajectory", "episode 2", "trial 1", "agent 0"
	Note  string // how it ended: "reward 1", "correct", "hit the step limit"
	Turns []Turn
	// Facts are its outcome's parts, name and value (an episode's reward
	// parts), in order.
	Facts []Fact
	// Gold are the actions the task expected and Taken the actions taken
	// (an episode's), shown side by side; nil when the task names none.
	Gold, Taken []string
}

// Fact is one named part of an outcome.
type Fact struct{ Name, Value string }

// Turn is one message of a thread: a role's text, or a tool call with its
// arguments and result.
type Turn struct {
	// Role is "user", "assistant" (the model, the agent), "tool" (a call
	// and its result), "reflection" or "feedback".
	Role string
	// Step is the model turn it belongs to (1-based; 0 before the first).
	Step    int
	Text    string
	Thought string
	// Tool, Arguments and Result are a tool turn's; Error marks a result
	// that is an error or an action that was refused.
	Tool, Arguments, Result string
	Error                   bool
}

// conversation is a ReAct trajectory as one thread: each step's thought
// (or unreadable reply), then each action with its observation.
func (tr ReActTrajectory) conversation(title string) Thread {
	th := Thread{Title: title}
	switch {
	case tr.Finished:
		th.Note = "finished"
	case tr.HitLimit:
		th.Note = "hit the step limit"
	}
	for _, st := range tr.Steps {
		if st.Thought != "" || st.Reply != "" {
			th.Turns = append(th.Turns, Turn{Role: "assistant", Step: st.Step, Thought: st.Thought, Text: st.Reply})
		}
		for _, a := range st.Actions {
			t := Turn{Role: "tool", Step: st.Step, Arguments: a.Call, Result: a.Observation, Error: a.Invalid} // the call as written names its tool
			if a.External != nil {
				t.Tool, t.Arguments = a.External.Server+" "+a.External.Tool, string(a.External.Arguments)
			}
			th.Turns = append(th.Turns, t)
		}
	}
	if tr.Output != "" {
		th.Turns = append(th.Turns, Turn{Role: "assistant", Text: tr.Output, Step: len(tr.Steps)})
	}
	return th
}

// conversation is each episode as a thread: the user's and the agent's
// messages and the agent's tool calls in order, with the reward's parts
// and, when the task names them, its gold actions beside those taken.
func (d ReActEpisodes) conversation() Conversation {
	var c Conversation
	for _, tr := range d.Trials {
		th := Thread{Title: fmt.Sprintf("episode %d", tr.Trial), Note: "reward " + strconv.FormatFloat(tr.Reward, 'g', 4, 64)}
		if tr.HitLimit {
			th.Note += ", hit the step limit"
		}
		if tr.Error != "" {
			th.Note += ", ended: " + tr.Error
		}
		for _, t := range tr.Turns {
			switch t.Role {
			case "tool":
				th.Turns = append(th.Turns, Turn{Role: "tool", Step: t.Step, Thought: t.Thought, Tool: t.Tool,
					Arguments: string(t.Arguments), Result: t.Result, Error: t.Error})
				th.Taken = append(th.Taken, callText(t.Tool, t.Arguments))
			case "agent":
				th.Turns = append(th.Turns, Turn{Role: "assistant", Step: t.Step, Text: t.Content, Thought: t.Thought})
			default:
				th.Turns = append(th.Turns, Turn{Role: t.Role, Step: t.Step, Text: t.Content})
			}
		}
		th.Facts, th.Gold = rewardParts(tr.Outcome.Info)
		if th.Gold == nil {
			th.Taken = nil // nothing to set them beside
		}
		c.Threads = append(c.Threads, th)
	}
	return c
}

// callText writes an action as name(arguments).
func callText(name string, args json.RawMessage) string {
	return name + "(" + compactJSON(args) + ")"
}

func compactJSON(b json.RawMessage) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// rewardParts reads an episode outcome's Info (τ-bench's reward_info:
// {"reward", "info": {r_actions, gt_data_hash | r_outputs, outputs},
// "actions": the gold actions}) into facts and gold actions; whatever it
// does not recognise is a fact as its JSON, and text that is not a JSON
// object is one fact.
func rewardParts(info json.RawMessage) (facts []Fact, gold []string) {
	if len(info) == 0 || string(info) == "null" {
		return nil, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(info, &top) != nil {
		return []Fact{{"info", clip(string(info), 2000)}}, nil
	}
	if v, ok := top["reward"]; ok {
		facts = append(facts, Fact{"reward", compactJSON(v)})
	}
	var parts map[string]json.RawMessage
	if json.Unmarshal(top["info"], &parts) == nil {
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			var sub map[string]json.RawMessage
			if json.Unmarshal(parts[k], &sub) == nil && len(sub) > 0 {
				for _, s := range slices.Sorted(maps.Keys(sub)) {
					facts = append(facts, Fact{k + ": " + s, compactJSON(sub[s])})
				}
				continue
			}
			facts = append(facts, Fact{k, compactJSON(parts[k])})
		}
	} else if v, ok := top["info"]; ok {
		facts = append(facts, Fact{"info", compactJSON(v)})
	}
	var actions []struct {
		Name   string          `json:"name"`
		Kwargs json.RawMessage `json:"kwargs"`
	}
	if json.Unmarshal(top["actions"], &actions) == nil && top["actions"] != nil {
		gold = []string{}
		for _, a := range actions {
			gold = append(gold, callText(a.Name, a.Kwargs))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if k != "reward" && k != "info" && k != "actions" {
			facts = append(facts, Fact{k, clip(compactJSON(top[k]), 2000)})
		}
	}
	return facts, gold
}

// conversation is each Reflexion trial as a thread: the reflections its
// prompt showed, its trajectory, its answer and the evaluator's judgement,
// the reflection written after it.
func (d ReflexionDetail) conversation() Conversation {
	var c Conversation
	var memory []string
	for _, r := range d.Seeded {
		memory = append(memory, r.Text)
	}
	for _, t := range d.Trials {
		th := Thread{Title: fmt.Sprintf("trial %d", t.Trial), Note: verdictWord(t.Correct)}
		if n := t.ShownReflections; n > 0 {
			for _, r := range memory[max(0, len(memory)-n):] {
				th.Turns = append(th.Turns, Turn{Role: "reflection", Text: r})
			}
		}
		th.Turns = append(th.Turns, Turn{Role: "assistant", Text: t.Trajectory})
		for _, tc := range t.ToolCalls {
			th.Turns = append(th.Turns, Turn{Role: "tool", Step: tc.Step, Tool: tc.Server + " " + tc.Tool, Arguments: string(tc.Arguments),
				Result: tc.Result, Error: tc.Error != ""})
		}
		if t.Judgement != "" {
			th.Turns = append(th.Turns, Turn{Role: "feedback", Text: t.Judgement})
		}
		if t.Reflection != "" {
			th.Turns = append(th.Turns, Turn{Role: "reflection", Text: t.Reflection})
			memory = append(memory, t.Reflection)
		}
		c.Threads = append(c.Threads, th)
	}
	return c
}

// conversation is each debate agent's answers as a thread, one turn a
// round (the agents × rounds grid stays the transcript's own view).
func (d DebateDetail) conversation() Conversation {
	c := Conversation{Threads: make([]Thread, d.Agents)}
	for a := range c.Threads {
		c.Threads[a].Title = fmt.Sprintf("agent %d", a)
		if a < len(d.Models) && d.Models[a] != "" {
			c.Threads[a].Title += " (" + d.Models[a] + ")"
		}
	}
	for r, round := range d.Rounds {
		for a, t := range round.Turns {
			if a >= len(c.Threads) {
				break
			}
			c.Threads[a].Turns = append(c.Threads[a].Turns, Turn{Role: "assistant", Step: r, Text: t.Output})
			c.Threads[a].Note = verdictWord(t.Correct) + " in the last round"
		}
	}
	return c
}

func verdictWord(correct bool) string {
	if correct {
		return "correct"
	}
	return "wrong"
}

// Lines writes the conversation as text (bench show): each thread's title,
// then one block a turn.
func (c Conversation) Lines() string {
	var b strings.Builder
	for _, th := range c.Threads {
		fmt.Fprintf(&b, "%s", th.Title)
		if th.Note != "" {
			fmt.Fprintf(&b, " (%s)", th.Note)
		}
		b.WriteString(":\n")
		for _, t := range th.Turns {
			head := t.Role
			if t.Step > 0 {
				head += fmt.Sprintf(" [step %d]", t.Step)
			}
			if t.Thought != "" {
				fmt.Fprintf(&b, "  %s thought: %s\n", head, turnLine(t.Thought))
			}
			switch {
			case t.Role == "tool":
				mark := ""
				if t.Error {
					mark = " (error)"
				}
				fmt.Fprintf(&b, "  %s: %s %s -> %s%s\n", head, t.Tool, turnLine(t.Arguments), turnLine(t.Result), mark)
			case t.Text != "":
				fmt.Fprintf(&b, "  %s: %s\n", head, turnLine(t.Text))
			}
		}
		for _, f := range th.Facts {
			fmt.Fprintf(&b, "  outcome %s = %s\n", f.Name, f.Value)
		}
		if th.Gold != nil {
			fmt.Fprintf(&b, "  gold actions: %s\n  actions taken: %s\n", strings.Join(th.Gold, "; "), strings.Join(th.Taken, "; "))
		}
	}
	return b.String()
}

// turnLine keeps a text to one line of at most 300 characters.
func turnLine(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 300)
}

// clip cuts s to at most n bytes on a rune boundary, valid UTF-8.
func clip(s string, n int) string {
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
