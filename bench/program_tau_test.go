package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/tau"
)

// tauProgramRange is the airline tasks the program tests play: a booking,
// a cancellation, and three changes with a required output.
const tauProgramRange = "0:3"

// tauScripted is a program that plays a fixed list of steps per task index
// (params script: a JSON file {index: [{"name", "kwargs"}, ...]}), then
// ends the episode with transfer_to_human_agents unless params end=false.
const tauScripted = `
import json, os, sys, urllib.request
item = json.loads(sys.stdin.readline())
env, key = os.environ["REASONBENCH_ENV_URL"], os.environ["OPENAI_API_KEY"]
def post(path, body):
    r = urllib.request.Request(env + path, json.dumps(body).encode(), {"Authorization": "Bearer " + key})
    with urllib.request.urlopen(r) as resp:
        return json.load(resp)
post("/env/reset", {})
done = False
for step in json.load(open(item["params"]["script"]))[str(item["index"])]:
    done = post("/env/step", step)["done"]
    if done:
        break
if not done and item["params"].get("end", True):
    post("/env/step", {"name": "transfer_to_human_agents", "kwargs": {"summary": "done"}})
`

func tauTask(t *testing.T) (*tau.EnvTask, []tasks.Instance) {
	t.Helper()
	spec, err := LookupTask("tau-airline")
	if err != nil {
		t.Fatal(err)
	}
	task := spec.New().(*tau.EnvTask)
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	return task, insts
}

// judged is a stored trial's reward judged in process: its actions replayed
// on a fresh database and scored by the task's reward, 0 unless the
// episode ended (as τ-bench's agent loop returns it).
func judged(t *testing.T, task *tau.EnvTask, inst tasks.Instance, tr strategiesTrial) float64 {
	t.Helper()
	db := task.Domain().NewDB()
	var taken []tau.Action
	for _, turn := range tr.Turns {
		switch turn.Role {
		case "tool":
			if _, err := db.Invoke(turn.Tool, turn.Arguments); err != nil {
				t.Fatalf("replaying %s: %v", turn.Tool, err)
			}
			taken = append(taken, tau.Action{Name: turn.Tool, Kwargs: turn.Arguments})
		case "agent":
			taken = append(taken, tau.Respond(turn.Content))
		}
	}
	r, err := inst.Data.(*tau.Task).Reward(db, taken)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Error != "" || tr.HitLimit || !endedEpisode(tr) {
		return 0
	}
	return r.Reward
}

type strategiesTrial = struct {
	Trial    int     `json:"trial"`
	Reward   float64 `json:"reward"`
	HitLimit bool    `json:"hit_limit"`
	Error    string  `json:"error"`
	Turns    []struct {
		Role      string          `json:"role"`
		Content   string          `json:"content"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    string          `json:"result"`
	} `json:"turns"`
}

// endedEpisode: the last turn is the user's stop or a transfer.
func endedEpisode(tr strategiesTrial) bool {
	if len(tr.Turns) == 0 {
		return false
	}
	last := tr.Turns[len(tr.Turns)-1]
	return strings.Contains(last.Content, "###STOP###") || (last.Role == "tool" && last.Tool == tau.TerminateTool)
}

// programTauItems reads a program run's τ items: every trial judged again
// in process; the rewards by item and trial.
func programTauItems(t *testing.T, st *store.Store, run int64, trials int) [][]float64 {
	t.Helper()
	task, insts := tauTask(t)
	items, err := st.Items(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, it := range items {
		var d struct {
			Trials []strategiesTrial `json:"trials"`
			Runs   []strategies.ProgramDetail
		}
		if err := json.Unmarshal(it.Detail, &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Trials) != trials {
			t.Fatalf("item %d: %d trials, want %d: %s", it.Index, len(d.Trials), trials, it.Detail)
		}
		var rewards []float64
		for _, tr := range d.Trials {
			if want := judged(t, task, insts[it.Index], tr); tr.Reward != want {
				t.Errorf("item %d trial %d: stored reward %v, judged in process %v (error %q)", it.Index, tr.Trial, tr.Reward, want, tr.Error)
			}
			rewards = append(rewards, tr.Reward)
		}
		out = append(out, rewards)
	}
	return out
}

func tauProgramConfig(t *testing.T, cmd string, params map[string]any) Config {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s absent (%v): scripts/install-sandbox.sh installs it", python, err)
	}
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "tau-airline", "program", tauProgramRange
	cfg.Params = map[string]any{"cmd": cmd, "timeout": "120s", "trials": 2}
	for k, v := range params {
		cfg.Params[k] = v
	}
	return cfg
}

// A scripted program that replays each task's gold actions scores 1 on
// every trial; one that cancels another of the user's reservations scores
// 0; one that replays the gold actions and exits without ending the
// episode scores 0, as τ-bench's loop would; each stored reward equals the
// one judged in process.
func TestProgramTauScripted(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "scripted.py")
	if err := os.WriteFile(prog, []byte(tauScripted), 0o644); err != nil {
		t.Fatal(err)
	}
	task, insts := tauTask(t)
	gold, wrong, tools := map[string]any{}, map[string]any{}, map[string]any{}
	for _, inst := range insts[:3] {
		tk := inst.Data.(*tau.Task)
		var steps, bad []map[string]any
		for _, a := range tk.Actions {
			steps = append(steps, map[string]any{"name": a.Name, "kwargs": a.Kwargs})
			bad = append(bad, map[string]any{"name": a.Name, "kwargs": a.Kwargs})
			if a.Name == "cancel_reservation" {
				bad[len(bad)-1]["kwargs"] = otherReservation(t, task, tk, a.Kwargs)
			}
		}
		tools[itoa(inst.Index)] = append([]map[string]any(nil), steps...)
		if len(tk.Outputs) > 0 {
			steps = append(steps, map[string]any{"name": "respond", "kwargs": map[string]string{"content": "The total is " + strings.Join(tk.Outputs, " and ")}})
		}
		gold[itoa(inst.Index)], wrong[itoa(inst.Index)] = steps, bad
	}
	write := func(name string, v any) string {
		b, _ := json.Marshal(v)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goldFile, wrongFile, toolsFile := write("gold.json", gold), write("wrong.json", wrong), write("tools.json", tools)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		params map[string]any
		want   []float64 // by item
	}{
		{"gold", map[string]any{"script": goldFile}, []float64{1, 1, 1}},
		{"wrong cancellation", map[string]any{"script": wrongFile}, []float64{1, 0, 0}}, // item 2 misses its output
		// The gold tool calls alone would score 1 on items 0 and 1 (the
		// wrong-cancellation case's item 0 shows it) had the episode ended.
		{"gold tools, never ended", map[string]any{"script": toolsFile, "end": false}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := tauProgramConfig(t, python+" "+prog, c.params)
			st := tempStore(t)
			sum, err := (&Engine{Store: st}).Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rewards := programTauItems(t, st, sum.RunID, 2)
			for i, rs := range rewards {
				want := 0.0
				if c.want != nil {
					want = c.want[i]
				}
				for trial, r := range rs {
					if r != want {
						t.Errorf("item %d trial %d: reward %v, want %v", i, trial, r, want)
					}
				}
			}
			if sum.Metrics["failed"] != 0 {
				t.Errorf("failed %v", sum.Metrics["failed"])
			}
		})
	}
}

// otherReservation is a cancellation of another reservation of the task's
// user than the gold one.
func otherReservation(t *testing.T, task *tau.EnvTask, tk *tau.Task, gold json.RawMessage) map[string]string {
	t.Helper()
	var g struct {
		ReservationID string `json:"reservation_id"`
	}
	json.Unmarshal(gold, &g)
	obs, err := task.Domain().NewDB().Invoke("get_user_details", json.RawMessage(`{"user_id": "`+tk.UserID+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		Reservations []string `json:"reservations"`
	}
	if err := json.Unmarshal([]byte(obs), &u); err != nil {
		t.Fatal(err)
	}
	for _, r := range u.Reservations {
		if r != g.ReservationID {
			return map[string]string{"reservation_id": r}
		}
	}
	t.Fatalf("user %s has no other reservation", tk.UserID)
	return nil
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// The example agent (python/examples/tau_agent.py) plays the simulator's
// airline tasks end to end, two trials each: every stored reward is the
// one judged in process; the same at concurrency 8 and 1; rerun into the
// same database with no model request.
func TestProgramTauExampleAgent(t *testing.T) {
	const script = "../python/examples/tau_agent.py"
	cfg := tauProgramConfig(t, python+" "+script, nil)
	ctx := context.Background()
	st := tempStore(t)
	sim, calls := simCounter(t, cfg)
	cfg.Concurrency = 8
	first, err := (&Engine{Store: st, Backend: sim}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Metrics["failed"] != 0 {
		t.Fatalf("the example failed: %+v", first)
	}
	rewards := programTauItems(t, st, first.RunID, 2)
	firstCalls := calls.Load()
	if firstCalls == 0 {
		t.Fatal("no model calls")
	}
	cfg.Concurrency = 1
	calls.Store(0)
	again, err := (&Engine{Store: st, Backend: sim}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Errorf("rerun into the same database: %d model calls, want 0", calls.Load())
	}
	sameProgramItems(t, st, first.RunID, again.RunID)
	other := tempStore(t)
	alone, err := (&Engine{Store: other}).Run(ctx, cfg) // concurrency 1, fresh database
	if err != nil {
		t.Fatal(err)
	}
	a, _ := st.Items(ctx, first.RunID)
	b, _ := other.Items(ctx, alone.RunID)
	for i := range a {
		if a[i].Output != b[i].Output || string(a[i].Detail) != string(b[i].Detail) {
			t.Errorf("item %d differs at concurrency 8 and 1", a[i].Index)
		}
	}
	t.Logf("tau_agent.py on airline %s, 2 trials: rewards %v, pass^1 %.3f, pass^2 %.3f, %d model calls (agent and user)",
		cfg.Range, rewards, first.Metrics["pass^1"], first.Metrics["pass^2"], firstCalls)
}
