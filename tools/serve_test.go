package tools

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// TestServeHotpotQA: bench mcp serve's tools are the task's own (but
// finish) with their schemas, and act on the item a call's _meta names as
// the built-in tools do: the same observations, the search's page kept
// for the lookup that follows.
func TestServeHotpotQA(t *testing.T) {
	task := hotpotqa.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	served, err := Serve("hotpotqa", task, insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(served.Handler())
	defer ts.Close()
	set, _ := connect(t, []Server{{Name: "hotpot", URL: ts.URL}})
	specs := set.Specs()
	// The SDK lists a server's tools by name.
	if len(specs) != 2 || specs[0].Name != "lookup" || specs[1].Name != "search" {
		t.Fatalf("served tools: %+v", specs)
	}
	for _, item := range []int{3, 5} {
		builtin, err := task.Tools(insts[item])
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]tasks.Tool{}
		for _, b := range builtin {
			byName[b.Name] = b
		}
		title := insts[item].Data.(hotpotqa.Question).Context[0].Title
		h := set.ForItem(nil, CacheOff, 1, item)
		for _, c := range [][2]string{{"search", `{"entity": "` + title + `"}`}, {"lookup", `{"keyword": "the"}`}, {"lookup", `{"keyword": "the"}`}, {"search", `{"entity": "Zzyzx nowhere"}`}} {
			want, err := byName[c[0]].Call(context.Background(), json.RawMessage(c[1]))
			if err != nil {
				t.Fatal(err)
			}
			got := call(t, h, c[0], c[1])
			if got.Observation != want.Observation {
				t.Errorf("item %d %s %s: served %q, built-in %q", item, c[0], c[1], got.Observation, want.Observation)
			}
		}
	}
}
