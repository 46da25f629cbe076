package tools

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// TestServeHotpotQA: bench mcp serve's tools are the task's own (but
// finish) with their schemas, and act on the item a call's _meta names as
// the built-in tools do: the same observations, the search's page kept
// for the lookup that follows.
func TestServeHotpotQA(t *testing.T) {
	task, insts, url := serveHotpotQA(t)
	set, _ := connect(t, []Server{{Name: "hotpot", URL: url}})
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

// TestServedReplacesTaskTools: a served tool equal to the task's (name,
// description, schema as JSON) replaces it under its own name, and its
// refusal reads as the built-in's; one that differs in its description
// is another tool, offered under the server's prefix; answering (finish)
// is never replaced.
func TestServedReplacesTaskTools(t *testing.T) {
	task, insts, url := serveHotpotQA(t)
	builtin, err := task.Tools(insts[2])
	if err != nil {
		t.Fatal(err)
	}
	own := func(edit func(*tasks.ExternalTool)) []tasks.ExternalTool {
		var out []tasks.ExternalTool
		for _, b := range builtin {
			e := tasks.ExternalTool{Name: b.Name, Description: b.Description, Schema: b.Schema()}
			if edit != nil {
				edit(&e)
			}
			out = append(out, e)
		}
		return out
	}
	names := func(set *Set) string {
		var n []string
		for _, s := range set.Specs() {
			n = append(n, s.Name+":"+s.Replaces)
		}
		return strings.Join(n, " ")
	}
	set, _, err := Connect(context.Background(), []Server{{Name: "hotpot", URL: url}, {Name: "again", URL: url}}, own(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if got := names(set); got != "lookup:lookup search:search again_lookup: again_search:" {
		t.Errorf("offered %s", got)
	}
	h := set.ForItem(nil, CacheOff, 1, 2)
	for _, c := range [][2]string{{"search", `{}`}, {"search", `{"entity": 3}`}, {"lookup", `{"keyword": "x"}`}} {
		var b tasks.Tool
		for _, t := range builtin {
			if t.Name == c[0] {
				b = t
			}
		}
		want, err := b.Call(context.Background(), json.RawMessage(c[1]))
		if err != nil {
			t.Fatal(err)
		}
		got := call(t, h, c[0], c[1])
		if got.Observation != want.Observation || got.Refused != want.Refused || got.Call == nil {
			t.Errorf("%s %s: served %q refused %v, built-in %q refused %v", c[0], c[1], got.Observation, got.Refused, want.Observation, want.Refused)
		}
	}
	// The other server's tools are not the task's: their refusals say so.
	if got := call(t, h, "again_search", `{}`); !strings.HasPrefix(got.Observation, "Error: ") {
		t.Errorf("again_search refused with %q", got.Observation)
	}
	other, _, err := Connect(context.Background(), []Server{{Name: "hotpot", URL: url}}, own(func(e *tasks.ExternalTool) {
		if e.Name == "search" {
			e.Description += " (changed)"
		}
		if e.Name == "finish" {
			e.Description, e.Schema = "", nil
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got := names(other); got != "lookup:lookup hotpot_search:" {
		t.Errorf("with another search, offered %s", got)
	}
}

// serveHotpotQA serves hotpotqa's tools over streamable HTTP on a loopback
// port until the test ends (after its clients, whose cleanups run first).
func serveHotpotQA(t *testing.T) (*hotpotqa.Task, []tasks.Instance, string) {
	t.Helper()
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
	t.Cleanup(ts.Close)
	return task, insts, ts.URL
}
