package tau

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/reasonbench/reasonbench/pyval"
)

// testdata/gpt-4o-airline-sample.json: 40 episodes of GPT-4o's logged
// airline run (tool-calling agent, 7362a17), in the log's own format.
type loggedEpisode struct {
	TaskID int     `json:"task_id"`
	Trial  int     `json:"trial"`
	Reward float64 `json:"reward"`
	Info   struct {
		RewardInfo json.RawMessage `json:"reward_info"`
	} `json:"info"`
	Traj []struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"traj"`
}

func loadLog(t testing.TB) []loggedEpisode {
	t.Helper()
	b, err := os.ReadFile("testdata/gpt-4o-airline-sample.json")
	if err != nil {
		t.Fatal(err)
	}
	var eps []loggedEpisode
	if err := json.Unmarshal(b, &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 40 {
		t.Fatalf("%d episodes", len(eps))
	}
	return eps
}

// replay re-executes an episode's tool calls on a fresh database, checking
// each observation against the logged tool message, and returns the
// database and the actions taken.
func replay(t *testing.T, dom *Domain, ep loggedEpisode) (*DB, []Action, int) {
	db := dom.NewDB()
	var actions []Action
	calls := 0
	for i, m := range ep.Traj {
		if m.Role != "assistant" {
			continue
		}
		if len(m.ToolCalls) == 0 {
			if m.Content == nil {
				t.Fatalf("message %d: no content", i)
			}
			actions = append(actions, Respond(*m.Content))
			continue
		}
		fn := m.ToolCalls[0].Function
		actions = append(actions, Action{Name: fn.Name, Kwargs: json.RawMessage(fn.Arguments)})
		obs, err := db.Invoke(fn.Name, json.RawMessage(fn.Arguments))
		if err != nil {
			t.Fatalf("message %d: %s(%s): %v", i, fn.Name, fn.Arguments, err)
		}
		calls++
		next := ep.Traj[i+1]
		if next.Role != "tool" || next.Content == nil {
			t.Fatalf("message %d: no tool message follows", i)
		}
		if obs != *next.Content {
			t.Errorf("task %d trial %d message %d: %s(%s)\n got  %.400q\n want %.400q", ep.TaskID, ep.Trial, i, fn.Name, fn.Arguments, obs, *next.Content)
		}
	}
	return db, actions, calls
}

// Every tool observation of the 40 logged episodes, byte for byte, and
// every logged reward with its reward_info.
func TestLoggedEpisodes(t *testing.T) {
	dom := mustLoad(t, "airline", Version7362a17)
	tasks, err := dom.Tasks("test")
	if err != nil {
		t.Fatal(err)
	}
	totalCalls, rewarded := 0, 0
	for _, ep := range loadLog(t) {
		db, actions, calls := replay(t, dom, ep)
		totalCalls += calls
		if string(ep.Info.RewardInfo) == "null" || ep.Info.RewardInfo == nil {
			// The episode hit the 30-step limit: no reward was computed.
			if len(ep.Traj) != 2+2*30 || ep.Reward != 0 {
				t.Errorf("task %d trial %d: no reward_info after %d messages", ep.TaskID, ep.Trial, len(ep.Traj))
			}
			continue
		}
		r, err := tasks[ep.TaskID].Reward(db, actions)
		if err != nil {
			t.Fatalf("task %d trial %d: %v", ep.TaskID, ep.Trial, err)
		}
		rewarded++
		if r.Reward != ep.Reward {
			t.Errorf("task %d trial %d: reward %v, logged %v", ep.TaskID, ep.Trial, r.Reward, ep.Reward)
		}
		got, err := r.Info()
		if err != nil {
			t.Fatal(err)
		}
		v, err := pyval.ParseJSON(ep.Info.RewardInfo)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := pyval.DumpJSON(v)
		if got != want {
			t.Errorf("task %d trial %d reward_info:\n got  %.500s\n want %.500s", ep.TaskID, ep.Trial, got, want)
		}
	}
	if totalCalls != 274 || rewarded != 37 {
		t.Errorf("%d tool calls, %d rewarded episodes; the sample has 274 and 37", totalCalls, rewarded)
	}
}

// The ground-truth hashes the sample logs (tasks without outputs) equal
// GroundTruthHash's.
func TestLoggedGroundTruthHashes(t *testing.T) {
	dom := mustLoad(t, "airline", Version7362a17)
	tasks, _ := dom.Tasks("test")
	n := 0
	for _, ep := range loadLog(t) {
		var ri struct {
			Info struct {
				GTHash string `json:"gt_data_hash"`
			} `json:"info"`
		}
		if json.Unmarshal(ep.Info.RewardInfo, &ri) != nil || ri.Info.GTHash == "" {
			continue
		}
		n++
		got, err := tasks[ep.TaskID].GroundTruthHash()
		if err != nil || got != ri.Info.GTHash {
			t.Errorf("task %d: gt hash %s, %v; logged %s", ep.TaskID, got, err, ri.Info.GTHash)
		}
	}
	if n != 28 {
		t.Errorf("%d logged hashes checked, the sample has 28", n)
	}
}
