package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// credentialed is a server configured with a credential on every path a
// configuration has: a URL's user info and query, flags and assignments
// and a header in its arguments, a URL among them, variables given by
// value and inherited, and headers.
func credentialed() Server {
	return Server{Name: "c", Command: "srv",
		Args: []string{"--api-key", "arg-cred-0001", "--token=arg-cred-0002", "API_SECRET=arg-cred-0003", "Authorization: Bearer arg-cred-0004",
			"https://u:arg-cred-0005@h.example/x?key=arg-cred-0006&page=2", "--verbose", "plain", "--auth-url=http://h/?token=arg-cred-0007"},
		Env: map[string]string{"GIVEN_TOKEN": "env-cred-0001", "INHERITED_API_KEY": "", "MODE": "fast"}}
}

// TestCredentials: every credential of a configuration is found, and
// nothing else.
func TestCredentials(t *testing.T) {
	getenv := func(k string) string {
		return map[string]string{"INHERITED_API_KEY": "env-cred-0002", "MODE": "slow"}[k]
	}
	got := credentialed().Credentials(getenv)
	want := []string{"arg-cred-0001", "arg-cred-0002", "arg-cred-0003", "arg-cred-0004", "Bearer arg-cred-0004", "arg-cred-0005",
		"arg-cred-0006", "arg-cred-0007", "env-cred-0001", "env-cred-0002"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("Credentials lacks %q: %q", w, got)
		}
	}
	for _, g := range got {
		// A URL's user info counts as the Basic authorization that
		// sends it; a user name beside a password does not.
		basic, _ := base64.StdEncoding.DecodeString(g)
		if !strings.Contains(g, "cred-") && !strings.Contains(string(basic), "cred-") {
			t.Errorf("Credentials holds %q, not a credential", g)
		}
	}
	web := Server{Name: "w", URL: "https://user:url-cred-0001@h.example/mcp?token=url-cred-0002&v=1",
		Headers: map[string]string{"Authorization": "Bearer hdr-cred-0001", "X-Api-Key": "hdr-cred-0002"}}
	got = web.Credentials(getenv)
	for _, w := range []string{"url-cred-0001", "url-cred-0002", "Bearer hdr-cred-0001", "hdr-cred-0001", "hdr-cred-0002"} {
		if !slices.Contains(got, w) {
			t.Errorf("Credentials of a URL server lacks %q: %q", w, got)
		}
	}
}

// TestRecordedWithoutCredentials: what a run stores of a server, and how
// messages name it (Where), holds none of its credentials nor a key bench
// knows, keeps the rest, and says whether a resume needs the server
// given again.
func TestRecordedWithoutCredentials(t *testing.T) {
	const runKey = "sk-run-recorded-5c1d"
	secrets.Process.Add(runKey)
	srv := credentialed()
	srv.Env["INNOCENT"] = runKey
	srv.Env["WRAPPED"] = "x " + runKey + " y"
	rec := srv.Recorded()
	web := Server{Name: "w", URL: "https://user:url-cred-0001@h.example/mcp?token=url-cred-0002&v=1",
		Headers: map[string]string{"Authorization": "Bearer hdr-cred-0001"}}
	wrec := web.Recorded()
	all := strings.Join(append(append(rec.Args, wrec.URL, wrec.Headers["Authorization"], srv.Where(), web.Where(), rec.Where()),
		rec.Env["GIVEN_TOKEN"], rec.Env["INNOCENT"], rec.Env["WRAPPED"]), "\n")
	for _, c := range []string{"cred-", runKey} {
		if strings.Contains(all, c) {
			t.Errorf("recorded or named with %q:\n%s", c, all)
		}
	}
	if !rec.Withheld || !wrec.Withheld {
		t.Errorf("withheld: %v %v, want both", rec.Withheld, wrec.Withheld)
	}
	if _, ok := wrec.Headers["Authorization"]; !ok {
		t.Error("the header's name is not recorded")
	}
	if rec.Env["MODE"] != "fast" || !slices.Contains(rec.Args, "plain") || !slices.Contains(rec.Args, "--verbose") ||
		!strings.Contains(wrec.URL, "v=1") || !strings.HasPrefix(wrec.URL, "https://h.example/mcp?") {
		t.Errorf("recorded lost what is not a credential: %+v %+v", rec, wrec)
	}
	if srv.Args[1] != "arg-cred-0001" || web.Headers["Authorization"] != "Bearer hdr-cred-0001" {
		t.Error("Recorded changed the server it was given")
	}
	// Only an inherited credential: nothing a resume lacks.
	plain := Server{Name: "p", Command: "srv", Args: []string{"--port", "3"}, Env: map[string]string{"SEARCH_API_KEY": ""}}
	if plain.Recorded().Withheld {
		t.Error("a server with only an inherited credential is marked withheld")
	}
}

// dumped starts a stdio toolstest server writing what it was given to a
// file and returns the file's contents once connected.
func dumped(t *testing.T, srv Server) (*Set, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump")
	srv.Env[toolstest.DumpEnv] = path
	set, _ := connect(t, []Server{srv})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return set, string(b)
}

// TestServerGetsOnlyItsCredentials: a server is given its own credentials
// (configured and inherited) and none of bench's keys nor another
// server's, whatever name its configuration gives them; and what its
// tools return shows none of them (a tool echoing its environment and
// command line), though the server had its own.
func TestServerGetsOnlyItsCredentials(t *testing.T) {
	const runKey, judgeKey = "sk-run-servers-91b2", "sk-judge-servers-7d0e"
	secrets.Process.Add(runKey, judgeKey)
	t.Setenv("MY_SERVICE_TOKEN", "svc-inherited-4410")
	other := Server{Name: "other", URL: "http://127.0.0.1:1/mcp?token=other-server-cred-88"}
	srv := stdio("own")
	srv.Args = []string{"--api-key", "own-arg-cred-3307"}
	srv.Env["MY_SERVICE_TOKEN"] = ""
	srv.Env["GIVEN_SECRET"] = "own-env-cred-5521"
	srv.Env["INNOCENT"] = runKey
	srv.Env["WRAPPED"] = "prefix-" + judgeKey
	srv.Env["BORROWED"] = "other-server-cred-88"
	Register([]Server{other}, os.Getenv) // srv's own: Connect registers them
	set, dump := dumped(t, srv)
	for _, want := range []string{"MY_SERVICE_TOKEN=svc-inherited-4410", "GIVEN_SECRET=own-env-cred-5521", "own-arg-cred-3307"} {
		if !strings.Contains(dump, want) {
			t.Errorf("the server was not given %s:\n%s", want, dump)
		}
	}
	for _, never := range []string{runKey, judgeKey, "other-server-cred-88", "INNOCENT=", "WRAPPED="} {
		if strings.Contains(dump, never) {
			t.Errorf("the server was given %s:\n%s", never, dump)
		}
	}
	h := set.ForItem(nil, CacheOff, 1, 0)
	for _, tool := range []string{"get-env", "get-args"} {
		res := call(t, h, tool, `{}`)
		for _, c := range []string{"svc-inherited-4410", "own-env-cred-5521", "own-arg-cred-3307"} {
			if strings.Contains(res.Observation, c) || strings.Contains(res.Call.Result, c) {
				t.Errorf("%s shows the server's credential %s:\n%s", tool, c, res.Observation)
			}
		}
		if !strings.Contains(res.Observation, secrets.Marker) {
			t.Errorf("%s: no redaction marker where the credential was:\n%s", tool, res.Observation)
		}
	}
	// An echo of the credential is redacted before the cache too.
	cache := &memCache{m: map[string]json.RawMessage{}}
	res := call(t, set.ForItem(cache, CacheReadWrite, 1, 0), "echo", `{"message": "svc-inherited-4410"}`)
	if strings.Contains(res.Observation, "svc-inherited") {
		t.Errorf("echo: %s", res.Observation)
	}
	for _, v := range cache.m {
		if strings.Contains(string(v), "svc-inherited") {
			t.Errorf("cached: %s", v)
		}
	}
}

// TestForeignKeyRefused: a key bench knows, or another server's
// credential, in a server's arguments, URL or headers is refused before
// the server starts or is reached, in one line that does not quote it.
func TestForeignKeyRefused(t *testing.T) {
	const runKey = "sk-run-refused-2e6f"
	secrets.Process.Add(runKey)
	var mu sync.Mutex
	reached := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached++
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer ts.Close()
	dir := t.TempDir()
	arg := stdio("argkey")
	arg.Args = []string{"--api-key=" + runKey}
	arg.Env[toolstest.DumpEnv] = filepath.Join(dir, "dump")
	for _, s := range []Server{arg,
		{Name: "urlkey", URL: ts.URL + "/mcp?token=" + runKey},
		{Name: "hdrkey", URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer " + runKey}},
	} {
		_, _, err := Connect(context.Background(), []Server{s}, nil)
		if err == nil || !strings.Contains(err.Error(), "mcp server "+s.Name) || strings.Contains(err.Error(), runKey) ||
			!strings.Contains(err.Error(), "key bench knows") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dump")); err == nil {
		t.Error("the server with the key in its arguments was started")
	}
	if reached != 0 {
		t.Errorf("the URL servers were reached %d times", reached)
	}
}

// TestHeadersSent: a URL server's configured headers reach it on every
// request; a tool echoing them shows them redacted; headers on a command
// server are refused.
func TestHeadersSent(t *testing.T) {
	handler := toolstest.New("1.0").Handler()
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Team"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close) // after the set's Close, which connect registers later
	// User info in the URL too: the configured Authorization is sent, not
	// Basic.
	withUser := strings.Replace(ts.URL, "http://", "http://someone:userinfo-pw-1188@", 1)
	srv := Server{Name: "hdr", URL: withUser, Headers: map[string]string{"Authorization": "Bearer hdr-sent-cred-6623", "X-Team": "team-cred-9901"}}
	set, _ := connect(t, []Server{srv})
	res := call(t, set.ForItem(nil, CacheOff, 1, 0), "get-headers", `{}`)
	if strings.Contains(res.Observation, "hdr-sent-cred") || strings.Contains(res.Observation, "team-cred") || !strings.Contains(res.Observation, "Authorization: "+secrets.Marker) {
		t.Errorf("get-headers: %s", res.Observation)
	}
	mu.Lock()
	if len(seen) < 2 {
		t.Errorf("%d requests", len(seen))
	}
	for _, h := range seen {
		if h != "Bearer hdr-sent-cred-6623|team-cred-9901" {
			t.Errorf("a request carried %q", h)
		}
	}
	mu.Unlock()
	bad := stdio("cmdhdr")
	bad.Headers = map[string]string{"Authorization": "x"}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "headers") {
		t.Errorf("headers on a command server: %v", err)
	}
	for _, h := range []map[string]string{{"Bad Name": "x"}, {"X-Ok": "a\r\nInjected: 1"}, {"Mcp-Session-Id": "s"}, {"content-type": "text/plain"}} {
		if err := (Server{Name: "h", URL: ts.URL, Headers: h}).Check(); err == nil {
			t.Errorf("headers %q accepted", h)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer t0k3n-abc"}}}}`), 0o644)
	list, err := ReadConfig(path)
	if err != nil || list[0].Headers["Authorization"] != "Bearer t0k3n-abc" {
		t.Errorf("ReadConfig headers: %+v %v", list, err)
	}
}

// TestConnectErrorWithoutCredentials: a server that cannot be reached is
// named in the error without its URL's credentials, and one whose stderr
// quotes its own credential is named without it.
func TestConnectErrorWithoutCredentials(t *testing.T) {
	for _, s := range []Server{
		{Name: "nobody", URL: "http://user:conn-cred-4471@127.0.0.1:1/mcp?token=conn-cred-4472"},
		{Name: "quotes", Command: "sh", Args: []string{"-c", `echo "bad token $SVC_TOKEN" >&2; exit 1`}, Env: map[string]string{"SVC_TOKEN": "conn-cred-4473"}},
	} {
		_, _, err := Connect(context.Background(), []Server{s}, nil)
		if err == nil || strings.Contains(err.Error(), "conn-cred") || !strings.HasPrefix(err.Error(), "mcp server "+s.Name) {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
}

// TestToolListWithoutCredentials: a server that quotes its own
// credential in a tool's description or schema offers the tool without
// it (the model and the records see what Specs lists).
func TestToolListWithoutCredentials(t *testing.T) {
	const cred = "list-cred-7a3e19"
	s := mcp.NewServer(&mcp.Implementation{Name: "quoting", Version: "1"}, nil)
	type args struct {
		Q string `json:"q" jsonschema:"the query; token list-cred-7a3e19 is used"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Looks up with token " + cred},
		func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	set, _ := connect(t, []Server{{Name: "q", URL: ts.URL + "/mcp?token=" + cred}})
	specs := set.Specs()
	if len(specs) != 1 || strings.Contains(specs[0].Description+string(specs[0].Schema), cred) || !strings.Contains(specs[0].Description, secrets.Marker) {
		t.Errorf("specs: %+v %s", specs, specs[0].Schema)
	}
}

// TestBasicAuthorizationRedacted: a URL's user info reaches the server as
// Basic authorization, which a tool echoing its headers shows redacted.
func TestBasicAuthorizationRedacted(t *testing.T) {
	_, ts := toolstest.HTTP("1.0")
	t.Cleanup(ts.Close)
	u := strings.Replace(ts.URL, "http://", "http://someone:basic-pw-5521@", 1)
	set, _ := connect(t, []Server{{Name: "basic", URL: u + "/mcp"}})
	res := call(t, set.ForItem(nil, CacheOff, 1, 0), "get-headers", `{}`)
	if !strings.Contains(res.Observation, "Authorization: Basic "+secrets.Marker) {
		t.Errorf("get-headers: %s", res.Observation)
	}
}
