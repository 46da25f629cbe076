package tau

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

// userSaying is a user model that answers every request with text.
func userSaying(text string) tasks.User {
	lib, _ := prompts.Bundled()
	return tasks.User{Prompts: lib, Strategy: "llm", Sampler: llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Choices: []llm.Choice{{Content: text}}}, nil
	})}
}

// An episode of the airline task takes what a model may write as the
// reference's Env.step does: garbage arguments are the tool's error as an
// observation, an unknown tool "Unknown action NAME", arguments that are
// not an object the episode's failure (the reference raises), and
// transfer_to_human_agents ends it with its reward.
func TestEpisodeActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	task, err := NewTask("airline", VersionHead, "test")
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := task.Instances()
	ep, err := task.Episode(ctx, insts[0], 0, userSaying("Hello, I need help."))
	if err != nil {
		t.Fatal(err)
	}
	if first, err := ep.Start(ctx); err != nil || first != "Hello, I need help." {
		t.Fatalf("Start: %q, %v", first, err)
	}
	if ep.Policy() != task.Domain().Wiki() || len(ep.Tools()) != 14 || !strings.HasPrefix(ep.ToolsJSON(), `[{"type": "function", "function": {"name": `) {
		t.Errorf("policy, %d tools, tools JSON %.80q", len(ep.Tools()), ep.ToolsJSON())
	}
	cases := []struct {
		name, args, obs string
		done            bool
		failed          bool
	}{
		{"get_user_details", `{"user_id": "mia_li_3668"}`, `{"name": {"first_name": "Mia"`, false, false},
		{"get_user_details", `{"user_id": 42}`, "Error: ", false, false},
		{"get_user_details", `{}`, "Error: GetUserDetails.invoke() missing 1 required positional argument: 'user_id'", false, false},
		{"fly_me_to_the_moon", `{}`, "Unknown action fly_me_to_the_moon", false, false},
		{"get_user_details", `[1]`, "", false, true},
		{tasks.RespondAction, `{"content": "How can I help?"}`, "Hello, I need help.", false, false},
		{tasks.RespondAction, `{"text": "no content"}`, "", false, true},
		{"transfer_to_human_agents", `{"summary": "the user wants a human"}`, "Transfer successful", true, false},
	}
	for _, tc := range cases {
		obs, done, err := ep.Act(ctx, tc.name, json.RawMessage(tc.args))
		var failed tasks.EpisodeFailed
		if tc.failed != errors.As(err, &failed) || !tc.failed && err != nil {
			t.Errorf("%s %s: err %v, want failed %v", tc.name, tc.args, err, tc.failed)
			continue
		}
		if !strings.HasPrefix(obs, tc.obs) || done != tc.done {
			t.Errorf("%s %s: %.120q done %v; want %q done %v", tc.name, tc.args, obs, done, tc.obs, tc.done)
		}
	}
	out := ep.Outcome()
	var info struct {
		Taken []struct{ Name string } `json:"actions_taken"`
		Gold  []struct{ Name string } `json:"gold_actions"`
	}
	if err := json.Unmarshal(out.Info, &info); err != nil {
		t.Fatal(err)
	}
	if out.Reward != 0 || len(info.Taken) != len(cases) || len(info.Gold) == 0 || out.UserCalls != 2 {
		t.Errorf("outcome: reward %v, %d actions taken (want %d), %d gold, %d user calls", out.Reward, len(info.Taken), len(cases), len(info.Gold), out.UserCalls)
	}
	if _, _, err := ep.Act(ctx, "get_user_details", json.RawMessage(`{"user_id": "mia_li_3668"}`)); err == nil {
		t.Error("an action after the episode ended was carried out")
	}
}

// The served tools (bench mcp serve --task tau-airline): each Tools call a
// database of its own, results as the reference's, garbage refused.
func TestServedToolsDatabasePerSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	task, err := NewTask("airline", VersionHead, "test")
	if err != nil {
		t.Fatal(err)
	}
	box := task.Toolbox()
	a, _ := box.Tools(tasks.Instance{})
	b, _ := box.Tools(tasks.Instance{})
	call := func(set []tasks.Tool, name, args string) tasks.ToolResult {
		for _, tl := range set {
			if tl.Name == name {
				r, err := tl.Call(ctx, json.RawMessage(args))
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
		}
		t.Fatalf("no tool %s", name)
		return tasks.ToolResult{}
	}
	const res = `{"reservation_id": "Z7GOZK"}`
	before := call(a, "get_reservation_details", res).Observation
	if got := call(a, "cancel_reservation", res); got.Refused || !strings.Contains(got.Observation, `"status": "cancelled"`) {
		t.Fatalf("cancel: %+v", got)
	}
	if after := call(a, "get_reservation_details", res).Observation; after == before {
		t.Error("the cancellation did not change session a's database")
	}
	if other := call(b, "get_reservation_details", res).Observation; other != before {
		t.Error("session b sees session a's cancellation")
	}
	want, _ := task.Domain().NewDB().Invoke("get_reservation_details", json.RawMessage(res))
	if before != want {
		t.Errorf("served result differs from the domain's:\n%s\n%s", before, want)
	}
	if r := call(b, "get_reservation_details", `"Z7GOZK"`); !r.Refused || !strings.HasPrefix(r.Observation, "Error: ") {
		t.Errorf("arguments that are not an object: %+v", r)
	}
}
