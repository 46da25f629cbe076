package strategies

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// envAnswer is one answer the scripted program (testdata/program/env.py)
// got: [status, body].
type envAnswer struct {
	Status int
	Body   map[string]any
}

func readEnvAnswers(t *testing.T, out string, trial int) []envAnswer {
	t.Helper()
	b, err := os.ReadFile(out + "." + string(rune('0'+trial)))
	if err != nil {
		t.Fatal(err)
	}
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var got []envAnswer
	for _, r := range raw {
		var a envAnswer
		json.Unmarshal(r[0], &a.Status)
		json.Unmarshal(r[1], &a.Body)
		got = append(got, a)
	}
	return got
}

// A program plays the shop's episodes through the environment endpoint:
// each case a script of steps; the trial's reward is the episode's only
// when the episode ended, whatever the program did after.
func TestProgramEpisodes(t *testing.T) {
	script, err := filepath.Abs("testdata/program/env.py")
	if err != nil {
		t.Fatal(err)
	}
	const (
		lookup = `{"name": "lookup", "kwargs": {"id": "X7"}}`
		bye    = `{"name": "respond", "kwargs": {"content": "bye"}}`
		hello  = `{"name": "respond", "kwargs": {"content": "hello"}}`
		fly    = `{"name": "fly", "kwargs": {}}`
		end    = `{"name": "end_call", "kwargs": {}}`
	)
	cases := []struct {
		name     string
		steps    []string
		set      map[string]any
		reward   float64
		done     bool   // the last step's answer says done
		hitLimit bool   // the trial hit max_steps
		errText  string // wanted in the trial's error ("": none)
		failure  string // wanted start of the program's failure
		statuses []int  // every answer's status, reset first
		tools    int
		toolErrs int
	}{
		{name: "ends with the user's stop", steps: []string{lookup, hello, bye}, reward: 1, done: true,
			statuses: []int{200, 200, 200, 200}, tools: 1},
		{name: "ends with a terminating tool", steps: []string{fly, end}, reward: 1, done: true,
			statuses: []int{200, 200, 200}, tools: 2, toolErrs: 1},
		{name: "exits before the end", steps: []string{lookup, hello}, reward: 0,
			errText: "the program ended before the episode did", statuses: []int{200, 200, 200}, tools: 1},
		{name: "never resets", set: map[string]any{"reset": false}, steps: []string{lookup}, reward: 0,
			errText: "the program did not reset the environment", statuses: []int{409}},
		{name: "steps after the end are refused", steps: []string{bye, lookup}, reward: 1, done: false,
			statuses: []int{200, 200, 409}},
		{name: "step limit", set: map[string]any{"max_steps": 2}, steps: []string{lookup, lookup, lookup, bye}, reward: 0, hitLimit: true,
			statuses: []int{200, 200, 200, 409, 409}, tools: 2},
		{name: "fails after the end: the reward stands", set: map[string]any{"exit": 3}, steps: []string{bye}, reward: 1, done: true,
			failure: "exit status 3", statuses: []int{200, 200}},
		{name: "fails before the end", set: map[string]any{"exit": 3}, steps: []string{lookup}, reward: 0,
			errText: "program: exit status 3", failure: "exit status 3", statuses: []int{200, 200}, tools: 1},
		{name: "malformed step is refused, the episode goes on", steps: []string{`{"name": "lookup", "kwargs": "X7"}`, bye}, reward: 1, done: true,
			statuses: []int{200, 400, 200}},
	}
	inst := tasks.Instance{Index: 0, Key: "0", Input: "the user's secret instruction"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "answers")
			set := map[string]any{"steps": "[" + strings.Join(c.steps, ",") + "]", "out": out}
			for k, v := range c.set {
				set[k] = v
			}
			s := newProgramFor(t, "python3 "+script, set)
			env := episodeEnv(t, &lockedScript{}, 1)
			if err := s.(TaskChecker).CheckTask(env.Task); err != nil {
				t.Fatal(err)
			}
			res, err := s.Solve(context.Background(), env, inst)
			if err != nil {
				t.Fatalf("a program's failure is the trial's, not an error: %v", err)
			}
			d := res.Detail.(ProgramEpisodes)
			if len(d.Trials) != 1 || len(d.Runs) != 1 || d.Protocol != ProtocolProgram {
				t.Fatalf("detail %+v", d)
			}
			tr, run := d.Trials[0], d.Runs[0]
			if tr.Reward != c.reward || res.Accuracy != c.reward || res.Metrics["reward"] != c.reward || res.Metrics["pass^1"] != c.reward {
				t.Errorf("reward %v (accuracy %v, metrics %v), want %v", tr.Reward, res.Accuracy, res.Metrics, c.reward)
			}
			if tr.HitLimit != c.hitLimit || !strings.Contains(tr.Error, c.errText) || (c.errText == "") != (tr.Error == "") {
				t.Errorf("hit limit %v, error %q; want %v, %q", tr.HitLimit, tr.Error, c.hitLimit, c.errText)
			}
			if !strings.HasPrefix(run.Failure, c.failure) || (c.failure == "") != (run.Failure == "") || res.Metrics["failed"] != boolFloat(c.failure != "") {
				t.Errorf("program failure %q (failed %v), want %q", run.Failure, res.Metrics["failed"], c.failure)
			}
			if tr.ToolCalls != c.tools || tr.ToolErrors != c.toolErrs {
				t.Errorf("%d tool calls, %d errors; want %d, %d", tr.ToolCalls, tr.ToolErrors, c.tools, c.toolErrs)
			}
			answers := readEnvAnswers(t, out, 0)
			var statuses []int
			for _, a := range answers {
				statuses = append(statuses, a.Status)
			}
			if !slices.Equal(statuses, c.statuses) {
				t.Fatalf("statuses %v, want %v: %v", statuses, c.statuses, answers)
			}
			refused := 0
			for _, st := range statuses {
				if st >= 400 {
					refused++
				}
			}
			if run.Refused != refused {
				t.Errorf("%d refusals logged, %d answered", run.Refused, refused)
			}
			if c.done {
				last := answers[len(answers)-1].Body
				if last["done"] != true || last["reward"] != c.reward {
					t.Errorf("last answer %v: want done with reward %v", last, c.reward)
				}
			}
			for _, a := range answers[1:] {
				if a.Status == 200 && a.Body["done"] == false && a.Body["reward"] != 0.0 {
					t.Errorf("a step before the end has reward %v", a.Body["reward"])
				}
			}
		})
	}
}

// Each trial is a run of its own: its own episode, its item line, its
// calls prefixed t<trial>/; the reset gives the policy and the tools as
// the environment specs them, never the user's instruction; the
// conversation is recorded as react's episodes are, and drawn by the
// program's reading.
func TestProgramEpisodeTrials(t *testing.T) {
	script, err := filepath.Abs("testdata/program/env.py")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "answers")
	s := newProgramFor(t, "python3 "+script, map[string]any{"trials": 2, "chat": true, "out": out,
		"steps": `[{"name": "lookup", "kwargs": {"id": "X7"}}, {"name": "respond", "kwargs": {"content": "bye"}}]`})
	model := &lockedScript{s: scripted{outputs: []string{"sure"}}}
	env := episodeEnv(t, model, 1)
	res, err := s.Solve(context.Background(), env, tasks.Instance{Index: 0, Key: "0", Input: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Detail.(ProgramEpisodes)
	if len(d.Trials) != 2 || d.Successes != 2 || len(d.PassHat) != 2 || res.Metrics["pass^2"] != 1 || res.Output != "2/2" {
		t.Fatalf("detail %+v, metrics %v", d, res.Metrics)
	}
	var calls []string
	for _, r := range model.s.reqs {
		calls = append(calls, r.Call)
	}
	if len(calls) != 2 || !strings.HasPrefix(calls[0], "t0/agent/p/") || !strings.HasPrefix(calls[1], "t1/agent/p/") || model.s.reqs[0].Purpose != "program" {
		t.Errorf("the program's calls %q: want t0/agent/p/… and t1/agent/p/…", calls)
	}
	for trial := range 2 {
		a := readEnvAnswers(t, out, trial)
		reset := a[0].Body
		info, _ := reset["info"].(map[string]any)
		if reset["observation"] != "I need id X7" || info["wiki"] != "# Shop policy" || info["trial"] != float64(trial) || info["task_index"] != 0.0 {
			t.Errorf("trial %d reset %v", trial, reset)
		}
		if tools, _ := info["tools"].([]any); len(tools) != len(shopTools) {
			t.Errorf("trial %d: tools %v", trial, info["tools"])
		}
		if strings.Contains(a[0].Body["observation"].(string), "secret") {
			t.Errorf("the user's instruction reached the program")
		}
		tr := d.Trials[trial]
		roles := []string{}
		for _, turn := range tr.Turns {
			roles = append(roles, turn.Role)
		}
		if tr.Trial != trial || strings.Join(roles, " ") != "user tool agent user" || tr.Turns[1].Result != "found X7" || tr.Steps != 2 {
			t.Errorf("trial %d turns %+v", trial, tr.Turns)
		}
	}
	b, _ := json.Marshal(res.Detail)
	v := reading.Of("program").ViewOf(b)
	if v.Conversation == nil || len(v.Conversation.Threads) != 2 {
		t.Errorf("the program's reading draws %+v", v.Conversation)
	}
}

// The episode parameters are checked before the run.
func TestProgramEpisodeParams(t *testing.T) {
	for _, c := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"trials": 0}, "parameter trials=0"},
		{map[string]any{"trials": 2.5}, "parameter trials=2.5"},
		{map[string]any{"trials": "many"}, "parameter trials=many"},
		{map[string]any{"max_steps": 0}, "parameter max_steps=0"},
		{map[string]any{"user": "oracle"}, "parameter user=oracle"},
		{map[string]any{"user_setup": "maybe"}, "parameter user_setup=maybe"},
		{map[string]any{"trials": 4, "max_steps": 30, "user": "llm", "user_setup": true}, ""},
	} {
		err := newProgramFor(t, "true", c.set).(TaskChecker).CheckTask(shop{})
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.set, err, c.want)
		}
	}
}
