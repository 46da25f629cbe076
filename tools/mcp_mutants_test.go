package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// TestChangedToolListGoesLive: a call is replayed from the cache only for
// the tool list it was made with; a server of the same name listing other
// tools (another digest) is called again.
func TestChangedToolListGoesLive(t *testing.T) {
	old, tsOld := toolstest.HTTP("1.0")
	defer tsOld.Close()
	changed, tsChanged := toolstest.HTTP("2.0")
	defer tsChanged.Close()
	cache := &memCache{m: map[string]json.RawMessage{}}
	sum := func(url string) *events.ToolCall {
		set, got := connect(t, []Server{{Name: "x", URL: url}})
		if got[0].Digest == "" {
			t.Fatalf("no digest: %+v", got[0])
		}
		return call(t, set.ForItem(cache, CacheReadWrite, 7, 0), "get-sum", `{"a":1,"b":2}`).Call
	}
	if c := sum(tsOld.URL); c.Cached || old.Calls() != 1 {
		t.Fatalf("first call: %+v after %d calls", c, old.Calls())
	}
	if c := sum(tsOld.URL); !c.Cached || old.Calls() != 1 {
		t.Fatalf("the same tool list again was not replayed: %+v after %d calls", c, old.Calls())
	}
	if c := sum(tsChanged.URL); c.Cached || changed.Calls() != 1 {
		t.Errorf("a changed tool list replayed the old one's call: %+v after %d calls", c, changed.Calls())
	}
}

// TestHungSessionDropped: after a call times out, the server's session is
// dropped and the next call runs on a new one (a hung tool may hold its
// session for good).
func TestHungSessionDropped(t *testing.T) {
	srv := stdio("hung")
	srv.Env[toolstest.OnlyEnv] = "hang,get-sum"
	srv.Timeout = 200 * time.Millisecond
	set, _ := connect(t, []Server{srv})
	session := func() any {
		c := set.servers[0]
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.session
	}
	h := set.ForItem(nil, CacheOff, 1, 0)
	before := session()
	if before == nil {
		t.Fatal("no session after connecting")
	}
	if res := call(t, h, "hang", `{}`); !res.Refused || res.Call.Error != "no answer within 200ms" {
		t.Fatalf("hang: %+v", res.Call)
	}
	if res := call(t, h, "get-sum", `{"a":2,"b":3}`); res.Observation != "The sum of 2 and 3 is 5." {
		t.Fatalf("after the hang: %+v", res)
	}
	if after := session(); after == nil || after == before {
		t.Errorf("the call after a timeout ran on the hung session")
	}
}

// TestReadConfigForms: VS Code's top-level "servers" is read as Claude's
// "mcpServers" is, and a timeout in fractional seconds keeps its fraction.
func TestReadConfigForms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"servers": {"b": {"url": "http://127.0.0.1:9/mcp", "timeout": 0.5},
		"a": {"command": "srv", "args": ["--x"], "timeout": 1.25}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := ReadConfig(path)
	if err != nil || len(list) != 2 {
		t.Fatalf("ReadConfig: %+v, %v", list, err)
	}
	if a := list[0]; a.Name != "a" || a.Command != "srv" || len(a.Args) != 1 || a.Timeout != 1250*time.Millisecond {
		t.Errorf("server a: %+v", a)
	}
	if b := list[1]; b.Name != "b" || b.URL != "http://127.0.0.1:9/mcp" || b.Timeout != 500*time.Millisecond {
		t.Errorf("server b: %+v", b)
	}
}

// TestServedSessionsApart: two clients' sessions on one item each keep
// their own tool state: a lookup follows its own session's search, not
// the other's.
func TestServedSessionsApart(t *testing.T) {
	task, insts, url := serveHotpotQA(t)
	const item = 4
	ctx := hotpotqa.Question{}
	ctx = insts[item].Data.(hotpotqa.Question)
	if len(ctx.Context) < 2 {
		t.Fatalf("item %d has %d paragraphs", item, len(ctx.Context))
	}
	search := func(i int) string { return `{"entity": "` + ctx.Context[i].Title + `"}` }
	lookup := `{"keyword": "the"}`
	// What the built-in tools say for a lookup after each search.
	want := make([]string, 2)
	for i := range want {
		builtin, err := task.Tools(insts[item])
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]tasks.Tool{}
		for _, b := range builtin {
			byName[b.Name] = b
		}
		for _, c := range [][2]string{{"search", search(i)}, {"lookup", lookup}} {
			res, err := byName[c[0]].Call(context.Background(), json.RawMessage(c[1]))
			if err != nil {
				t.Fatal(err)
			}
			want[i] = res.Observation
		}
	}
	if want[0] == want[1] {
		t.Fatalf("the two pages look the same up: %q", want[0])
	}
	a, _ := connect(t, []Server{{Name: "hotpot", URL: url}})
	b, _ := connect(t, []Server{{Name: "hotpot", URL: url}})
	ha, hb := a.ForItem(nil, CacheOff, 1, item), b.ForItem(nil, CacheOff, 1, item)
	call(t, ha, "search", search(0))
	call(t, hb, "search", search(1))
	if got := call(t, ha, "lookup", lookup).Observation; got != want[0] {
		t.Errorf("session a's lookup: %q, want %q", got, want[0])
	}
	if got := call(t, hb, "lookup", lookup).Observation; got != want[1] {
		t.Errorf("session b's lookup: %q, want %q", got, want[1])
	}
}
