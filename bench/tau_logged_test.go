package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks/tau"
)

// loggedEpisode is one episode of GPT-4o's logged airline run as its log
// keeps it (historical_trajectories/gpt-4o-airline.json).
type loggedEpisode struct {
	TaskID int     `json:"task_id"`
	Trial  int     `json:"trial"`
	Reward float64 `json:"reward"`
	Info   struct {
		Task struct {
			Instruction string `json:"instruction"`
		} `json:"task"`
		RewardInfo json.RawMessage `json:"reward_info"`
	} `json:"info"`
	Traj []loggedMessage `json:"traj"`
}

type loggedMessage struct {
	Role       string  `json:"role"`
	Content    *string `json:"content"`
	ToolCallID string  `json:"tool_call_id"`
	Name       string  `json:"name"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// message is the logged message as reasonbench sends it.
func (m loggedMessage) message() llm.Message {
	out := llm.Message{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name}
	if m.Content != nil {
		out.Content = *m.Content
	}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
}

func loadLoggedRun(t *testing.T) []loggedEpisode {
	t.Helper()
	b, err := os.ReadFile("../tasks/tau/testdata/gpt-4o-airline-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var eps []loggedEpisode
	if err := json.Unmarshal(b, &eps); err != nil {
		t.Fatal(err)
	}
	return eps
}

// loggedModel stands in for GPT-4o as both the agent and the simulated
// user of the logged run, answering each request with the logged message
// that followed the same conversation. The four trials of a task begin with
// the same user request: each first request of a task is handed the next
// trial's opening, in turn. A request no logged episode continues is a
// divergence, recorded for the test to fail on.
type loggedModel struct {
	eps []loggedEpisode

	mu       sync.Mutex
	openings map[int]int    // task id -> first user requests answered
	seen     map[string]int // a request's text -> times answered
	diverged []string
	agent    int // agent requests answered
	user     int // user requests answered (setup calls excluded)
	setup    int
	temps    []string
}

func (m *loggedModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	usage := llm.Usage{PromptTokens: 100, CompletionTokens: 10}
	if len(req.Tools) > 0 { // the tool-calling agent
		m.agent++
		if req.Temperature == nil || *req.Temperature != 0 {
			m.temps = append(m.temps, fmt.Sprint(req.Temperature))
		}
		// Trials whose conversations are the same so far are told apart
		// by the order they ask in (a task's trials run one after another).
		var matches []loggedEpisode
		for _, e := range m.eps {
			if len(e.Traj) > len(req.Messages) && sameMessages(e.Traj[:len(req.Messages)], req.Messages) && e.Traj[len(req.Messages)].Role == "assistant" {
				matches = append(matches, e)
			}
		}
		if len(matches) > 0 {
			key, _ := json.Marshal(req.Messages)
			k := m.seen[string(key)]
			m.seen[string(key)]++
			next := matches[k%len(matches)].Traj[len(req.Messages)].message()
			return llm.Response{Model: "gpt-4o", Usage: usage, Choices: []llm.Choice{{Content: next.Content, ToolCalls: next.ToolCalls}}}, nil
		}
		m.diverged = append(m.diverged, fmt.Sprintf("agent request of %d messages, last %q%s", len(req.Messages), clip(req.Messages[len(req.Messages)-1].Content), m.nearest(req.Messages)))
		return llm.Response{Usage: usage, Choices: []llm.Choice{{Content: "(diverged)"}}}, nil
	}
	// The simulated user: its system turn names the task by its
	// instruction; the agent's messages are its user turns.
	if req.Temperature != nil {
		m.temps = append(m.temps, "user "+fmt.Sprint(*req.Temperature))
	}
	system := req.Messages[0].Content
	var task = -1
	for _, e := range m.eps {
		if strings.Contains(system, e.Info.Task.Instruction) {
			task = e.TaskID
		}
	}
	if task < 0 { // the setup call, made with no instruction: answered and discarded
		m.setup++
		return llm.Response{Usage: usage, Choices: []llm.Choice{{Content: "Hi."}}}, nil
	}
	m.user++
	var said []string // what the simulated user said so far, and the agent
	var heard []string
	for _, msg := range req.Messages[2:] {
		if msg.Role == "assistant" {
			said = append(said, msg.Content)
		} else {
			heard = append(heard, msg.Content)
		}
	}
	var candidates []loggedEpisode
	for _, e := range m.eps {
		if e.TaskID != task {
			continue
		}
		users, agents := conversation(e.Traj)
		if len(users) > len(said) && slices.Equal(users[:len(said)], said) && len(agents) >= len(heard) && slices.Equal(agents[:len(heard)], heard) {
			candidates = append(candidates, e)
		}
	}
	if len(said) == 0 { // the opening: the trials in turn
		k := m.openings[task]
		m.openings[task]++
		for _, e := range candidates {
			if e.Trial == k {
				users, _ := conversation(e.Traj)
				return llm.Response{Usage: usage, Choices: []llm.Choice{{Content: users[0]}}}, nil
			}
		}
	} else if len(candidates) > 0 {
		key, _ := json.Marshal(req.Messages)
		k := m.seen[string(key)]
		m.seen[string(key)]++
		users, _ := conversation(candidates[k%len(candidates)].Traj)
		return llm.Response{Usage: usage, Choices: []llm.Choice{{Content: users[len(said)]}}}, nil
	}
	m.diverged = append(m.diverged, fmt.Sprintf("user request of task %d after %d replies (%d candidates, opening %d): %q", task, len(said), len(candidates), m.openings[task], heard))
	return llm.Response{Usage: usage, Choices: []llm.Choice{{Content: "###STOP###"}}}, nil
}

// nearest says where the logged episode that continues the request
// longest differs from it.
func (m *loggedModel) nearest(sent []llm.Message) string {
	best, where := -1, ""
	for _, e := range m.eps {
		for i := range min(len(e.Traj), len(sent)) {
			want, got := e.Traj[i].message(), sent[i]
			got.Reasoning = ""
			if !reflect.DeepEqual(want, got) {
				if i > best {
					best, where = i, fmt.Sprintf("; task %d trial %d differs at message %d:\nlogged %+v\nsent   %+v", e.TaskID, e.Trial, i, want, got)
				}
				break
			}
		}
	}
	return where
}

// conversation is what the user said and what the agent said to the user
// in a logged trajectory, in order.
func conversation(traj []loggedMessage) (users, agents []string) {
	for _, m := range traj[1:] {
		c := ""
		if m.Content != nil {
			c = *m.Content
		}
		switch {
		case m.Role == "user":
			users = append(users, c)
		case m.Role == "assistant" && len(m.ToolCalls) == 0:
			agents = append(agents, c)
		}
	}
	return users, agents
}

func sameMessages(logged []loggedMessage, sent []llm.Message) bool {
	for i, l := range logged {
		want, got := l.message(), sent[i]
		got.Reasoning = ""
		if !reflect.DeepEqual(want, got) {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

// TestTauLoggedRunReplays is issue 42's reproduction: --preset
// tau-airline/logged-run over HTTP against a stand-in that replays GPT-4o's
// logged airline run (10 tasks x 4 trials) as the agent and as the user.
// Every agent request carries exactly the logged messages, every episode
// ends as logged with the logged reward and reward info, and the run's
// pass^1..4 are the log's.
func TestTauLoggedRunReplays(t *testing.T) {
	t.Parallel()
	eps := loadLoggedRun(t)
	model := &loggedModel{eps: eps, openings: map[int]int{}, seen: map[string]int{}}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()
	cfg, err := ApplyPreset(DefaultConfig(), "tau-airline/logged-run")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range, cfg.Model, cfg.BaseURL, cfg.Concurrency = "0:10", "gpt-4o", srv.URL+"/v1", 4
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(model.diverged) > 0 {
		t.Fatalf("%d requests left the log, e.g. %s", len(model.diverged), model.diverged[0])
	}
	if len(model.temps) > 0 {
		t.Errorf("temperatures: the agent's must be 0, the user's unsent: %v", model.temps)
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil || len(items) != 10 {
		t.Fatalf("items: %d, %v", len(items), err)
	}
	byTask := map[int]map[int]loggedEpisode{}
	for _, e := range eps {
		if byTask[e.TaskID] == nil {
			byTask[e.TaskID] = map[int]loggedEpisode{}
		}
		byTask[e.TaskID][e.Trial] = e
	}
	var pass [4]float64
	for _, it := range items {
		var d reading.ReActEpisodes
		if err := json.Unmarshal(it.Detail, &d); err != nil {
			t.Fatal(err)
		}
		c := 0
		for _, tr := range d.Trials {
			want := byTask[it.Index][tr.Trial]
			// An episode the log ends at the agent's step limit has no
			// reward info there: it never ended.
			limit := string(want.Info.RewardInfo) == "null" || len(want.Info.RewardInfo) == 0
			if tr.Reward != want.Reward || tr.Error != "" || tr.HitLimit != limit {
				t.Errorf("task %d trial %d: reward %v (error %q, limit %v), logged %v (limit %v)", it.Index, tr.Trial, tr.Reward, tr.Error, tr.HitLimit, want.Reward, limit)
			}
			var info struct {
				RewardInfo json.RawMessage `json:"reward_info"`
			}
			json.Unmarshal(tr.Outcome.Info, &info)
			if !limit && !sameJSON(info.RewardInfo, want.Info.RewardInfo) {
				t.Errorf("task %d trial %d: reward info\n%s\nlogged\n%s", it.Index, tr.Trial, info.RewardInfo, want.Info.RewardInfo)
			}
			// The whole conversation: the episode's turns are the log's
			// after the system turn.
			users, agents := conversation(want.Traj)
			var gotUsers, gotAgents []string
			for _, turn := range tr.Turns {
				switch turn.Role {
				case "user":
					gotUsers = append(gotUsers, turn.Content)
				case "agent":
					gotAgents = append(gotAgents, turn.Content)
				}
			}
			if !slices.Equal(gotUsers, users) || !slices.Equal(gotAgents, agents) {
				t.Errorf("task %d trial %d: the conversation differs from the log (%d/%d user turns, %d/%d agent turns)", it.Index, tr.Trial, len(gotUsers), len(users), len(gotAgents), len(agents))
			}
			if tr.Reward == 1 {
				c++
			}
		}
		for k := 1; k <= 4; k++ {
			pass[k-1] += strategies.PassHat(c, 4, k) / 10
			if got := it.Metrics[fmt.Sprintf("pass^%d", k)]; math.Abs(got-strategies.PassHat(c, 4, k)) > 1e-12 {
				t.Errorf("task %d: pass^%d = %v, want %v", it.Index, k, got, strategies.PassHat(c, 4, k))
			}
		}
	}
	// The log's own pass^k over these 10 tasks, from its rewards.
	var logged [4]float64
	for task := range 10 {
		c := 0
		for _, e := range byTask[task] {
			if e.Reward == 1 {
				c++
			}
		}
		for k := 1; k <= 4; k++ {
			logged[k-1] += strategies.PassHat(c, 4, k) / 10
		}
	}
	for k := range 4 {
		if math.Abs(pass[k]-logged[k]) > 1e-12 || math.Abs(sum.Metrics[fmt.Sprintf("pass^%d", k+1)]-logged[k]) > 1e-12 {
			t.Errorf("pass^%d: items %v, run %v, log %v", k+1, pass[k], sum.Metrics[fmt.Sprintf("pass^%d", k+1)], logged[k])
		}
	}
	// Every request the reference sends: per episode its user's setup call.
	if model.setup != 40 {
		t.Errorf("%d setup calls, want one per episode (40)", model.setup)
	}
	if sum.Status != store.StatusDone {
		t.Errorf("status %s", sum.Status)
	}
	t.Logf("replayed 40 episodes: %d agent and %d user requests, pass^1..4 %.3f %.3f %.3f %.3f", model.agent, model.user, pass[0], pass[1], pass[2], pass[3])
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

var _ = tau.VersionHead

// BenchmarkTauAirlineSimulated is issue 42's speed figure: the whole
// airline test split, 4 trials (200 episodes), on the simulator with the
// tool-calling preset, stored in a fresh database; ns/op is one whole run,
// and the turn figure is the engine's time per conversation turn (the
// simulator's answers included).
func BenchmarkTauAirlineSimulated(b *testing.B) {
	cfg, err := ApplyPreset(DefaultConfig(), "tau-airline/tool-calling")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Params["trials"] = 4
	var turns float64
	for b.Loop() {
		st := tempStore(b)
		sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
		if err != nil || sum.N != 50 {
			b.Fatalf("%+v, %v", sum, err)
		}
		turns = sum.Metrics["turns"] * 200
	}
	b.ReportMetric(turns, "turns/run")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/turns/1e3, "µs/turn")
}
