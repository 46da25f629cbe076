package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// The test binary doubles as a stdio MCP server (toolstest) when this
// variable names the version it reports.
const serverEnv = "REASONBENCH_TEST_AS_MCP"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(hostEnv); cfg != "" {
		hostMain(cfg)
	}
	if v := os.Getenv(serverEnv); v != "" {
		if err := toolstest.ServeStdio(v); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hostEnv makes the test binary a bench stand-in (hostMain): it connects
// to the server its value describes (JSON), starts a call that hangs (if
// the server has hang), says "ready GROUP" with the server's process group
// and waits to be killed.
const hostEnv = "REASONBENCH_TEST_AS_HOST"

func hostMain(cfg string) {
	var s Server
	if err := json.Unmarshal([]byte(cfg), &s); err != nil {
		fmt.Println("bad server:", err)
		os.Exit(1)
	}
	set, _, err := Connect(context.Background(), []Server{s}, nil)
	if err != nil {
		fmt.Println("connect:", err)
		os.Exit(1)
	}
	if _, ok := set.byName["hang"]; ok {
		go set.ForItem(nil, CacheOff, 1, 0).Call(context.Background(), "hang", json.RawMessage(`{}`))
		time.Sleep(200 * time.Millisecond) // the call reaches the server
	}
	group := 0
	if p := set.servers[0].proc; p != nil {
		group = p.cmd.Process.Pid
	}
	fmt.Println("ready", group)
	time.Sleep(time.Minute)
	os.Exit(0)
}

// stdio is a server that runs this test binary as toolstest's server.
func stdio(name string) Server {
	return Server{Name: name, Command: os.Args[0], Env: map[string]string{serverEnv: "1.0"}}
}

func connect(t *testing.T, servers []Server, reserved ...string) (*Set, []Server) {
	t.Helper()
	var own []tasks.ExternalTool
	for _, n := range reserved {
		own = append(own, tasks.ExternalTool{Name: n})
	}
	set, got, err := Connect(context.Background(), servers, own)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	return set, got
}

func call(t *testing.T, h tasks.ToolHost, name, args string) tasks.ToolResult {
	t.Helper()
	res, err := h.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Call == nil && res.Observation == "" {
		t.Fatalf("%s: empty result", name)
	}
	return res
}

// TestBothTransports lists and calls the tools over stdio and streamable
// HTTP, with the server's report and tool digest recorded.
func TestBothTransports(t *testing.T) {
	_, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	set, got := connect(t, []Server{stdio("local"), {Name: "remote", URL: ts.URL}})
	if got[0].Reported != "toolstest 1.0" || got[1].Reported != "toolstest 1.0" || len(got[0].Digest) != 64 || got[0].Digest != got[1].Digest {
		t.Fatalf("recorded servers: %+v", got)
	}
	names := map[string]string{}
	for _, s := range set.Specs() {
		names[s.Name] = s.Server
	}
	// Both serve get-sum: each is offered under its server's prefix.
	if names["local_get-sum"] != "local" || names["remote_get-sum"] != "remote" || names["get-sum"] != "" {
		t.Fatalf("tool names: %v", names)
	}
	h := set.ForItem(nil, CacheOff, 1, 0)
	for _, name := range []string{"local_get-sum", "remote_get-sum"} {
		res := call(t, h, name, `{"a": 2, "b": 3}`)
		if res.Refused || res.Observation != "The sum of 2 and 3 is 5." || res.Call.Server != strings.Split(name, "_")[0] || res.Call.Tool != "get-sum" {
			t.Errorf("%s: %+v %+v", name, res, res.Call)
		}
	}
}

// TestMisbehavingServers: an error result, a JSON-RPC error, a hang, a 10
// MB result, garbage on the wire and a crash are each an error observation
// with a one-line reason, and the host goes on; the hang, the garbage and
// the crash are marked as the server's failures.
func TestMisbehavingServers(t *testing.T) {
	// A hung tool may stall its server: it has one of its own.
	hung := stdio("hung")
	hung.Timeout = 300 * time.Millisecond
	srv := stdio("bad")
	// Generous: 10 MB through a race-built server and client took over 20 s
	// on the shared machine while another package built.
	srv.Timeout = time.Minute
	set, _ := connect(t, []Server{hung, srv})
	h := set.ForItem(nil, CacheOff, 1, 0)
	for _, c := range []struct {
		tool, want            string
		refused, serverFailed bool
	}{
		{"hung_hang", "Error: no answer within 300ms", true, true},
		{"bad_fail", "Error: the tool failed on purpose", true, false},
		{"bad_get-weather", "Error: unknown city: Atlantis", true, false},
		{"bad_big", "BEGIN xxx", false, false},
		{"bad_echo", "Echo: still alive", false, false},
		{"bad_garbage", "Error: ", true, true},
		{"bad_echo", "Echo: still alive", false, false}, // the server was started again
		{"bad_crash", "Error: the server failed", true, true},
		{"bad_echo", "Echo: still alive", false, false},
	} {
		args := `{}`
		switch c.tool {
		case "bad_echo":
			args = `{"message": "still alive"}`
		case "bad_get-weather":
			args = `{"city": "Atlantis"}`
		}
		res := call(t, h, c.tool, args)
		if !strings.HasPrefix(res.Observation, c.want) || res.Refused != c.refused || res.Call.Error == "" == c.refused || res.Call.ServerFailed != c.serverFailed {
			t.Errorf("%s: %q refused=%v error=%q server failed=%v", c.tool, clip(res.Observation, 200), res.Refused, res.Call.Error, res.Call.ServerFailed)
		}
		t.Logf("%s: %s", c.tool, clip(res.Observation, 160))
		if strings.Contains(res.Call.Error, "\n") || len(res.Observation) > MaxObservation+100 {
			t.Errorf("%s: error %q or observation of %d bytes", c.tool, res.Call.Error, len(res.Observation))
		}
		if c.tool == "bad_big" && (!strings.Contains(res.Observation, "END") || !strings.Contains(res.Observation, "[image image/png, 1000 bytes]") ||
			!strings.Contains(res.Observation, "bytes cut")) {
			t.Errorf("big: the end or the image's line is missing: %q", clip(res.Observation, 300))
		}
	}
}

// TestJSONRPCErrorIsAnObservation: a tool that refuses its arguments with
// a JSON-RPC error (-32602, "unknown city") gives an error observation, as
// an isError result does: the server is not restarted (6 calls, 1 start),
// and the refusal is cached and replayed like any answer.
func TestJSONRPCErrorIsAnObservation(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	srv := stdio("w")
	srv.Env[toolstest.PidsEnv] = pids
	set, _ := connect(t, []Server{srv})
	h := set.ForItem(nil, CacheOff, 1, 0)
	for i := range 6 {
		res := call(t, h, "get-weather", `{"city": "Atlantis"}`)
		if !res.Refused || res.Observation != "Error: unknown city: Atlantis" || !strings.Contains(res.Call.Error, "unknown city") || res.Call.ServerFailed {
			t.Errorf("call %d: %q refused=%v %+v", i, res.Observation, res.Refused, res.Call)
		}
	}
	if res := call(t, h, "get-weather", `{"city": "Paris"}`); res.Refused || res.Observation != "Paris: sunny, 21 C" {
		t.Errorf("a known city: %+v", res)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "server "); n != 1 {
		t.Errorf("the server was started %d times for 7 calls, want 1", n)
	}

	// Cached and replayed, over streamable HTTP too.
	s, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	hs, _ := connect(t, []Server{{Name: "x", URL: ts.URL}})
	cache := &memCache{m: map[string]json.RawMessage{}}
	first := call(t, hs.ForItem(cache, CacheReadWrite, 7, 0), "get-weather", `{"city": "Atlantis"}`)
	n := s.Calls()
	again := call(t, hs.ForItem(cache, CacheReadWrite, 7, 0), "get-weather", `{"city": "Atlantis"}`)
	if !first.Refused || first.Call.Cached || !again.Call.Cached || again.Observation != first.Observation || again.Call.Error != first.Call.Error || s.Calls() != n {
		t.Errorf("not replayed: first %+v, again %+v, %d calls", first.Call, again.Call, s.Calls()-n)
	}
}

// TestServerEnvironment: a started server sees PATH, HOME, LANG, TMPDIR
// and its configured variables, never bench's keys.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-secret-1")
	t.Setenv("GITHUB_TOKEN", "ghp-secret-2")
	t.Setenv("AWS_REGION", "secret-region-3")
	t.Setenv("UNRELATED", "secret-4")
	t.Setenv("SEARCH_API_KEY", "secret-5") // configured without a value: taken from bench's
	srv := stdio("env")
	srv.Env["GREETING"] = "hello"
	srv.Env["SEARCH_API_KEY"] = ""
	set, dump := dumped(t, srv)
	got := set.servers[0].cfg
	for _, secret := range []string{"sk-test-secret-1", "ghp-secret-2", "secret-region-3", "secret-4"} {
		if strings.Contains(dump, secret) {
			t.Errorf("the server sees %s:\n%s", secret, dump)
		}
	}
	for _, want := range []string{"GREETING=hello", "PATH=", "SEARCH_API_KEY=secret-5"} {
		if !strings.Contains(dump, want) {
			t.Errorf("the server lacks %s:\n%s", want, dump)
		}
	}
	// Its own key, shown by a tool, is redacted (Register).
	res := call(t, set.ForItem(nil, CacheOff, 1, 0), "get-env", `{}`)
	if strings.Contains(res.Observation, "secret-5") || !strings.Contains(res.Observation, "SEARCH_API_KEY="+secrets.Marker) {
		t.Errorf("get-env shows:\n%s", res.Observation)
	}
	if rec := got.Recorded(); rec.Env["SEARCH_API_KEY"] != "" || rec.Env["GREETING"] != "hello" {
		t.Errorf("recorded env: %v", rec.Env)
	}
}

// TestServerEnvironmentWithoutBenchKeys: a key bench knows (the run's,
// registered in secrets.Process) is kept from a server even when its
// configuration names the variable holding it or sets it by value.
func TestServerEnvironmentWithoutBenchKeys(t *testing.T) {
	const canary = "sk-canary-tools-7f3a"
	secrets.Process.Add(canary)
	t.Setenv("OPENAI_API_KEY", canary)
	t.Setenv("SEARCH_API_KEY", "secret-5")
	srv := stdio("env")
	srv.Env["OPENAI_API_KEY"] = ""  // named for the server: still the run's key
	srv.Env["LEAK"] = "x " + canary // by value under an innocent name
	srv.Env["SEARCH_API_KEY"] = ""  // the server's own key stays
	_, dump := dumped(t, srv)
	if strings.Contains(dump, canary) {
		t.Errorf("the server sees the run's key:\n%s", dump)
	}
	if !strings.Contains(dump, "SEARCH_API_KEY=secret-5") {
		t.Errorf("the server lost its own key:\n%s", dump)
	}
}

type memCache struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

func (c *memCache) CacheGet(_ context.Context, key string) (json.RawMessage, time.Duration, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, time.Millisecond, ok, nil
}

func (c *memCache) CachePut(_ context.Context, key string, _, resp json.RawMessage, _ time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; !ok {
		c.m[key] = resp
	}
	return nil
}

// TestCacheReplays: an item's calls replay from the cache in a second
// pass with no call to the server, identical calls of one item are told
// apart by their count, another item (seed) calls again, a transient
// failure is not cached, and off calls live.
func TestCacheReplays(t *testing.T) {
	s, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	set, _ := connect(t, []Server{{Name: "x", URL: ts.URL, Timeout: 300 * time.Millisecond}})
	cache := &memCache{m: map[string]json.RawMessage{}}
	pass := func(mode string, seed int64) []*events.ToolCall {
		h := set.ForItem(cache, mode, seed, 0)
		var out []*events.ToolCall
		for _, c := range [][2]string{{"get-sum", `{"a":1,"b":2}`}, {"get-sum", `{"b":2, "a":1}`}, {"fail", `{}`}, {"hang", `{}`}} {
			out = append(out, call(t, h, c[0], c[1]).Call)
		}
		return out
	}
	first := pass(CacheReadWrite, 7)
	if first[0].ID == first[1].ID || !strings.HasSuffix(first[1].ID, "#1") || first[0].Cached {
		t.Fatalf("identities: %+v %+v", first[0], first[1])
	}
	n := s.Calls()
	again := pass(CacheReadWrite, 7)
	for i := range 3 {
		if !again[i].Cached || again[i].Result != first[i].Result || again[i].ID != first[i].ID || again[i].Error != first[i].Error {
			t.Errorf("call %d not replayed: %+v vs %+v", i, again[i], first[i])
		}
	}
	if again[3].Cached || s.Calls() != n+1 {
		t.Errorf("the hang was replayed (%+v) or the replay called the server (%d calls, want %d)", again[3], s.Calls(), n+1)
	}
	n = s.Calls()
	pass(CacheReadWrite, 8)
	pass(CacheOff, 7)
	if s.Calls() != n+8 {
		t.Errorf("another item or cache off made %d calls, want 8", s.Calls()-n)
	}
}

// TestConnectFailsNamingTheServer: a command that does not exist, one that
// exits, and a URL nobody answers each fail in one line naming the server.
func TestConnectFailsNamingTheServer(t *testing.T) {
	for _, s := range []Server{
		{Name: "nosuch", Command: filepath.Join(t.TempDir(), "no-such-server")},
		{Name: "exits", Command: "sh", Args: []string{"-c", "echo broken >&2; exit 1"}},
		{Name: "nobody", URL: "http://127.0.0.1:1/mcp"},
	} {
		_, _, err := Connect(context.Background(), []Server{s}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), "mcp server "+s.Name+" ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

func TestParseFlagAndConfig(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Server
		bad  bool
	}{
		{in: `everything=npx -y "@modelcontextprotocol/server-everything" stdio`, want: Server{Name: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything", "stdio"}}},
		{in: `hotpot='bench' mcp serve --task hotpotqa`, want: Server{Name: "hotpot", Command: "bench", Args: []string{"mcp", "serve", "--task", "hotpotqa"}}},
		{in: `hot=bench mcp serve --task 'hot pot' a\ b`, want: Server{Name: "hot", Command: "bench", Args: []string{"mcp", "serve", "--task", "hot pot", "a b"}}},
		{in: `web=http://127.0.0.1:3001/mcp`, want: Server{Name: "web", URL: "http://127.0.0.1:3001/mcp"}},
		{in: `web=`, bad: true},
		{in: `noname`, bad: true},
		{in: `x=sh -c 'unclosed`, bad: true},
	} {
		got, err := ParseFlag(c.in)
		if (err != nil) != c.bad {
			t.Errorf("%s: err %v", c.in, err)
			continue
		}
		if !c.bad && (got.Name != c.want.Name || got.Command != c.want.Command || got.URL != c.want.URL || strings.Join(got.Args, "|") != strings.Join(c.want.Args, "|")) {
			t.Errorf("%s: %+v, want %+v", c.in, got, c.want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"A": "1"}},
		"web": {"url": "http://127.0.0.1:9/mcp", "timeout": 2}}}`), 0o644)
	list, err := ReadConfig(path)
	if err != nil || len(list) != 2 || list[0].Name != "fs" || list[0].Args[2] != "/tmp" || list[0].Env["A"] != "1" ||
		list[1].URL != "http://127.0.0.1:9/mcp" || list[1].Timeout != 2*time.Second {
		t.Fatalf("ReadConfig: %+v %v", list, err)
	}
	os.WriteFile(path, []byte(`{"mcpServers": {"both": {"command": "x", "url": "http://127.0.0.1/"}}}`), 0o644)
	if _, err := ReadConfig(path); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("a server with a command and a url: %v", err)
	}
}

func TestSecretNames(t *testing.T) {
	for name, want := range map[string]bool{"OPENAI_API_KEY": true, "github_token": true, "DB_PASSWORD": true, "AWS_REGION": true,
		"CLIENT_SECRET": true, "PATH": false, "HOME": false, "LANG": false, "GREETING": false} {
		if Secret(name) != want {
			t.Errorf("Secret(%s) = %v", name, !want)
		}
	}
}
