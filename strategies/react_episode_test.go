package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// shop is a made-up environment: one tool, lookup(id), that answers
// "found ID" or "Error: no id" for an empty one, end_call that ends the
// episode, and a user who replies "ok N" to the agent's N-th message and
// "###STOP###" when told "bye".
type shop struct{ outcome float64 }

func (shop) Name() string                                            { return "shop" }
func (shop) Instances() ([]tasks.Instance, error)                    { return []tasks.Instance{{Key: "0"}}, nil }
func (shop) Score(tasks.Instance, string) tasks.Score                { return tasks.Score{} }
func (shop) AnswerKey(tasks.Instance, string, string) (string, bool) { return "", false }
func (shop) VoteKeys() []string                                      { return nil }
func (shop) UserStrategies() []string                                { return []string{"llm"} }
func (s shop) Episode(_ context.Context, _ tasks.Instance, trial int, u tasks.User) (tasks.Episode, error) {
	return &shopEpisode{reward: s.outcome, user: u, trial: trial}, nil
}

type shopEpisode struct {
	reward  float64
	user    tasks.User
	trial   int
	said    int
	actions []string
}

var shopTools = []tasks.EnvTool{
	{Name: "lookup", Description: "look an id up", Parameters: json.RawMessage(`{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}`)},
	{Name: "end_call", Description: "end", Parameters: json.RawMessage(`{"type": "object", "properties": {}}`)},
}

func (e *shopEpisode) Policy() string         { return "# Shop policy" }
func (e *shopEpisode) Tools() []tasks.EnvTool { return shopTools }
func (e *shopEpisode) ToolsJSON() string      { return `[{"name": "lookup"}]` }
func (e *shopEpisode) Start(ctx context.Context) (string, error) {
	resp, err := e.user.Sampler.Sample(ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}, Purpose: "user",
		Call: fmt.Sprintf("t%d/user/0", e.trial)})
	if err != nil {
		return "", err
	}
	return "I need id " + resp.Choices[0].Content, nil
}

func (e *shopEpisode) Act(_ context.Context, name string, args json.RawMessage) (string, bool, error) {
	e.actions = append(e.actions, name+" "+string(args))
	switch name {
	case tasks.RespondAction:
		var r struct{ Content string }
		json.Unmarshal(args, &r)
		if r.Content == "bye" {
			return "###STOP###", true, nil
		}
		e.said++
		return fmt.Sprintf("ok %d", e.said), false, nil
	case "lookup":
		var a struct{ ID string }
		if json.Unmarshal(args, &a) != nil || a.ID == "" {
			return "Error: no id", false, nil
		}
		return "found " + a.ID, false, nil
	case "end_call":
		return "ended", true, nil
	}
	return "Unknown action " + name, false, nil
}

func (e *shopEpisode) Outcome() events.Outcome {
	info, _ := json.Marshal(e.actions)
	return events.Outcome{Reward: e.reward, Info: info}
}

// episodeEnv is an Env on the shop with the agent's replies scripted and
// the user answering "X7"; the templates react_* come from a folder of the
// test's.
func episodeEnv(t *testing.T, agent llm.Sampler, reward float64) Env {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"react_tools": "{{.Policy}}{{if .Examples}}\n\n{{.Examples}}{{end}}",
		"react_act":   "{{.Policy}}\n#Available tools\n{{.ToolsJSON}}\nact",
		"react_react": "{{.Policy}}\n#Available tools\n{{.ToolsJSON}}\nreact",
		"react_xml":   "{{.Policy}}\n#Available tools\n{{.ToolsJSON}}\nxml <tool_name>",
	} {
		if err := os.MkdirAll(filepath.Join(dir, "shop"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "shop", name+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	user := &scripted{outputs: []string{"X7"}}
	return Env{Sampler: llm.Chain(agent, llm.Identify(3, 1)), User: llm.Chain(user, llm.Identify(3, 1)), Task: shop{outcome: reward}, Prompts: lib, Seed: 3}
}

// toolScript answers in the tools protocol: turn i's reply.
type toolScript struct {
	replies []llm.Choice
	reqs    []llm.Request
}

func (s *toolScript) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > len(s.replies) {
		return llm.Response{Choices: []llm.Choice{{Content: "bye"}}}, nil
	}
	return llm.Response{Choices: []llm.Choice{s.replies[len(s.reqs)-1]}}, nil
}

func TestEpisodeToolCallingAgent(t *testing.T) {
	t.Parallel()
	agent := &toolScript{replies: []llm.Choice{
		{Content: "Let me look.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"id": "X7"}`}, {ID: "c2", Name: "lookup", Arguments: `{"id": "Y"}`}}},
		{ToolCalls: []llm.ToolCall{{ID: "c3", Name: "lookup", Arguments: `{"id": ""}`}}},
		{ToolCalls: []llm.ToolCall{{ID: "c4", Name: "fly", Arguments: `{}`}}},
		{Content: "Found it."},
		{Content: "bye"},
	}}
	env := episodeEnv(t, agent, 1)
	s := &react{protocol: ProtocolTools, maxSteps: 30, trials: 2, user: "llm"}
	res, err := s.Solve(context.Background(), env, tasks.Instance{Key: "0"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Detail.(reading.ReActEpisodes)
	if len(d.Trials) != 2 || d.Successes != 2 || res.Accuracy != 1 || !reflect.DeepEqual(d.PassHat, []float64{1, 1}) {
		t.Fatalf("episodes: %+v, accuracy %v", d, res.Accuracy)
	}
	tr := d.Trials[0]
	if tr.Steps != 5 || tr.ToolCalls != 3 || tr.ToolErrors != 2 || tr.HitLimit || tr.Error != "" {
		t.Errorf("trial 0: steps %d, tool calls %d, errors %d, limit %v, error %q", tr.Steps, tr.ToolCalls, tr.ToolErrors, tr.HitLimit, tr.Error)
	}
	// The fifth request carries the whole history as τ-bench's tool-calling
	// agent keeps it: only the first tool call of a turn, each answered by a
	// tool turn, a turn without calls answered by the user.
	want := []llm.Message{
		{Role: "system", Content: "# Shop policy"},
		{Role: "user", Content: "I need id X7"},
		{Role: "assistant", Content: "Let me look.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"id": "X7"}`}}},
		{Role: "tool", ToolCallID: "c1", Name: "lookup", Content: "found X7"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c3", Name: "lookup", Arguments: `{"id": ""}`}}},
		{Role: "tool", ToolCallID: "c3", Name: "lookup", Content: "Error: no id"},
		{Role: "assistant", ToolCalls: []llm.ToolCall{{ID: "c4", Name: "fly", Arguments: `{}`}}},
		{Role: "tool", ToolCallID: "c4", Name: "fly", Content: "Unknown action fly"},
		{Role: "assistant", Content: "Found it."},
		{Role: "user", Content: "ok 1"},
	}
	got := agent.reqs[4]
	if !reflect.DeepEqual(got.Messages, want) {
		t.Errorf("fifth request:\n%+v\nwant\n%+v", got.Messages, want)
	}
	if len(got.Tools) != 2 || got.Tools[0].Name != "lookup" || got.Temperature != nil || got.Call != "t0/s5/agent" || got.Purpose != "agent" {
		t.Errorf("fifth request: tools %v, temperature %v, call %q, purpose %q", got.Tools, got.Temperature, got.Call, got.Purpose)
	}
	if agent.reqs[5].Call != "t1/s1/agent" {
		t.Errorf("the second trial's first call is %q: every trial its own draws", agent.reqs[5].Call)
	}
	if n := len(tr.Turns); n != 8 || tr.Turns[0].Role != "user" || tr.Turns[1].Tool != "lookup" || !tr.Turns[2].Error || tr.Turns[n-1].Content != "###STOP###" {
		t.Errorf("turns: %+v", tr.Turns)
	}
}

func TestEpisodeTextAgents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		protocol string
		replies  []string
		steps    int
		calls    int
		failed   string // the episode's error, "" none
	}{
		{ProtocolAct, []string{"Action:\n{\"name\": \"lookup\", \"arguments\": {\"id\": \"X7\"}}", "Action:\n{\"name\": \"respond\", \"arguments\": {\"content\": \"bye\"}}"}, 2, 1, ""},
		{ProtocolReAct, []string{"Thought:\nI look it up.\nAction:\n{\"name\": \"lookup\", \"arguments\": {\"id\": \"X7\"}}", "Thought:\ndone\nAction:\nbye"}, 2, 1, ""},
		// Not JSON after Action: said to the user as it stands.
		{ProtocolAct, []string{"Action: hello there", "Action: bye"}, 2, 0, ""},
		// JSON without arguments: the reference's assertion fails.
		{ProtocolAct, []string{"Action:\n{\"name\": \"lookup\"}"}, 1, 0, `lacks "name" or "arguments"`},
		{ProtocolAct, []string{"Action:\n[1, 2]"}, 1, 0, "not an object"},
		{ProtocolXML, []string{"<thinking>look</thinking>\n<lookup>\n<id>X7</id>\n</lookup>", "bye"}, 2, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.protocol+" "+tc.replies[0], func(t *testing.T) {
			t.Parallel()
			agent := &scripted{outputs: tc.replies}
			env := episodeEnv(t, agent, 1)
			s := &react{protocol: tc.protocol, maxSteps: 5, trials: 1, user: "llm"}
			res, err := s.Solve(context.Background(), env, tasks.Instance{Key: "0"})
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Detail.(reading.ReActEpisodes).Trials[0]
			if tr.Steps != tc.steps || tr.ToolCalls != tc.calls || !strings.Contains(tr.Error, tc.failed) || (tc.failed == "") != (tr.Error == "") {
				t.Fatalf("steps %d, calls %d, error %q; want %d, %d, %q", tr.Steps, tr.ToolCalls, tr.Error, tc.steps, tc.calls, tc.failed)
			}
			if tc.failed != "" && (tr.Reward != 0 || res.Accuracy != 0) {
				t.Errorf("an episode ended by an error scored %v", tr.Reward)
			}
			sys := agent.reqs[0].Messages[0].Content
			if !strings.HasPrefix(sys, "# Shop policy\n#Available tools\n") || !strings.HasSuffix(sys, tc.protocol) && tc.protocol != ProtocolXML {
				t.Errorf("system turn %q", sys)
			}
			if tc.calls > 0 {
				if obs := agent.reqs[1].Messages[3].Content; obs != "API output: found X7" {
					t.Errorf("the observation turn is %q", obs)
				}
			}
		})
	}
}

func TestEpisodeStepLimitScoresZero(t *testing.T) {
	t.Parallel()
	agent := &scripted{outputs: []string{"Action:\n{\"name\": \"lookup\", \"arguments\": {\"id\": \"X7\"}}"}}
	env := episodeEnv(t, agent, 1) // the environment would give 1
	s := &react{protocol: ProtocolAct, maxSteps: 3, trials: 1, user: "llm"}
	res, err := s.Solve(context.Background(), env, tasks.Instance{Key: "0"})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Detail.(reading.ReActEpisodes).Trials[0]
	if !tr.HitLimit || tr.Steps != 3 || tr.Reward != 0 || len(agent.reqs) != 3 {
		t.Errorf("at the step limit: %+v after %d requests", tr, len(agent.reqs))
	}
}

func TestEpisodeUserFailureIsAnError(t *testing.T) {
	t.Parallel()
	env := episodeEnv(t, &scripted{outputs: []string{"bye"}}, 1)
	env.User = llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{}, errors.New("user model down")
	})
	s := &react{protocol: ProtocolAct, maxSteps: 3, trials: 1, user: "llm"}
	if _, err := s.Solve(context.Background(), env, tasks.Instance{Key: "0"}); err == nil || !strings.Contains(err.Error(), "user model down") {
		t.Errorf("a failing user model: %v", err)
	}
}

func TestPassHat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		c, n, k int
		want    float64
	}{
		{4, 4, 4, 1}, {0, 4, 1, 0}, {2, 4, 1, 0.5}, {2, 4, 2, 1.0 / 6}, {3, 4, 2, 0.5}, {3, 4, 3, 0.25}, {3, 4, 4, 0},
		{1, 1, 1, 1}, {5, 10, 3, 10.0 / 120}, {2, 4, 5, 0}, {2, 4, 0, 0},
	}
	for _, tc := range cases {
		if got := PassHat(tc.c, tc.n, tc.k); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("PassHat(%d, %d, %d) = %v, want %v", tc.c, tc.n, tc.k, got, tc.want)
		}
	}
	// Averaged over tasks it is the τ-bench leaderboard's figure: tasks with
	// 4, 3, 1 and 0 successes of 4.
	cs := []int{4, 3, 1, 0}
	for k, want := range []float64{0.5, (1 + 0.5) / 4, (1 + 0.25) / 4, 0.25} {
		var sum float64
		for _, c := range cs {
			sum += PassHat(c, 4, k+1)
		}
		if got := sum / 4; math.Abs(got-want) > 1e-12 {
			t.Errorf("pass^%d over the tasks = %v, want %v", k+1, got, want)
		}
	}
}

// TestEpisodeRecordsUserTurns: an episode records each of the simulated
// user's messages as a user event under the agent's turn that drew it
// (the first message under step 0), and the user's model calls take that
// step too.
func TestEpisodeRecordsUserTurns(t *testing.T) {
	agent := &toolScript{replies: []llm.Choice{{Content: "Hello."}, {ToolCalls: []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"id": "X7"}`}}}, {Content: "bye"}}}
	env := episodeEnv(t, agent, 1)
	var log events.Log
	env.Events = &log
	var steps []string
	env.User = llm.Chain(env.User, func(next llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			step, _ := events.StepOf(ctx)
			steps = append(steps, step)
			return next.Sample(ctx, req)
		})
	})
	s := &react{protocol: ProtocolTools, maxSteps: 10, trials: 1, user: "llm"}
	if _, err := s.Solve(context.Background(), env, tasks.Instance{Key: "0"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log.Take() {
		got = append(got, fmt.Sprintf("%s@%s#%d:%s", e.Kind, e.Step, e.Seq, e.Text))
	}
	if want := []string{"user@t0/s0#0:I need id X7", "user@t0/s1#0:ok 1", "user@t0/s3#0:###STOP###"}; !reflect.DeepEqual(got, want) {
		t.Errorf("user events %q, want %q", got, want)
	}
	if !reflect.DeepEqual(steps, []string{"t0/s0"}) {
		t.Errorf("the user's model calls were made under steps %q", steps)
	}
}
