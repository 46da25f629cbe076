package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools/toolstest"
	"github.com/reasonbench/reasonbench/view"
)

// endpointLog is a loopback server's record of every request it received
// (request line, headers and body), for checking what reached whom.
type endpointLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *endpointLog) add(r *http.Request) {
	dump, _ := httputil.DumpRequest(r, true) // the body is restored
	l.mu.Lock()
	l.seen = append(l.seen, string(dump))
	l.mu.Unlock()
}

func (l *endpointLog) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.seen, "\n----\n")
}

func (l *endpointLog) n() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seen)
}

// simEndpoint serves the simulator (skill 1: it calls the tool its
// question names) over HTTP, logging each request; with echo, every
// answer's content and reasoning_content carry the Authorization header
// and URL the request came with, as a hostile or broken server's could.
func simEndpoint(t *testing.T, echo bool) (*httptest.Server, *endpointLog) {
	t.Helper()
	p := sim.DefaultParams()
	p.Skill, p.Slip = 1, 0
	m, err := bench.NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	api := llm.NewServer(m, llm.ServerOptions{})
	log := &endpointLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if !echo || r.Method != http.MethodPost {
			api.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, r)
		var resp map[string]any
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		said := fmt.Sprintf(" (sent with %s to %s)", r.Header.Get("Authorization"), r.URL)
		choices, _ := resp["choices"].([]any)
		for _, c := range choices {
			if msg, ok := c.(map[string]any)["message"].(map[string]any); ok {
				content, _ := msg["content"].(string)
				msg["content"] = content + said
				msg["reasoning_content"] = "I was called" + said
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, log
}

// leaks lists where any canary appears in what a database gives away:
// the file and its WAL, bench export --calls of each run, the Parquet
// export of all runs, and the viewer's pages (runs, each run, each item).
// Every command's output goes to out.
func leaks(t *testing.T, db string, canaries []string, out io.Writer) []string {
	t.Helper()
	var found []string
	check := func(where, text string) {
		for _, c := range canaries {
			if strings.Contains(text, c) {
				found = append(found, fmt.Sprintf("%s holds %s", where, c))
			}
		}
	}
	for _, f := range []string{db, db + "-wal"} {
		if b, err := os.ReadFile(f); err == nil {
			check(filepath.Base(f), string(b))
		}
	}
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	dir := t.TempDir()
	ids := []string{"export"}
	for _, r := range runs {
		id := strconv.FormatInt(r.ID, 10)
		ids = append(ids, id)
		path := filepath.Join(dir, "run"+id+".jsonl")
		code, stdout, stderr := cli(t, "export", id, "--db", db, "--calls", "--out", path)
		fmt.Fprint(out, stdout, stderr)
		b, err := os.ReadFile(path)
		if code != 0 || err != nil || len(b) == 0 {
			t.Fatalf("export %s: exit %d %s %v", id, code, stderr, err)
		}
		check("export --calls of run "+id, string(b))
	}
	pq := filepath.Join(dir, "pq")
	code, stdout, stderr := cli(t, append(ids, "--db", db, "--format", "parquet", "--out", pq)...)
	fmt.Fprint(out, stdout, stderr)
	if code != 0 {
		t.Fatalf("export parquet: %s", stderr)
	}
	for _, f := range []string{"runs", "items", "calls"} {
		_, rows := readParquet(t, filepath.Join(pq, f+".parquet"))
		check(f+".parquet", fmt.Sprint(rows))
	}
	h, err := view.New(st, bench.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	page := func(path string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("viewer %s: %d", path, resp.StatusCode)
		}
		check("viewer "+path, string(b))
	}
	page("/")
	for _, r := range runs {
		page(fmt.Sprintf("/runs/%d", r.ID))
		items, err := st.Items(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			page(fmt.Sprintf("/runs/%d/items/%d", r.ID, it.Index))
		}
	}
	return found
}

// TestCanaryKeyEveryPath is issue 43's part 3 end to end: canary keys in
// each path a credential can take, found afterwards nowhere in the
// database file or its WAL, bench export --calls, Parquet, the viewer's
// pages, bench's output, or a request to an endpoint not given them.
//
//   - the run's key as --api-key, keys in --base-url's user info and its
//     ?api-key=, sent to an endpoint that echoes its Authorization header
//     and URL in content and reasoning_content, on creative writing with
//     the judge on another endpoint (which must never receive it) with a
//     key of its own; again without --api-key, the user info sent as
//     Basic authorization;
//   - MCP servers: one started with the run's key, a string containing the
//     judge's key and the run's under innocent names, its own credentials
//     configured, inherited ("MY_SERVICE_TOKEN": "") and in its arguments;
//     one reached with user info and ?token= in its URL, one with an
//     Authorization header; tools that echo their environment, arguments
//     and headers; a server with the run's key in its arguments (refused)
//     and an unreachable URL with a password (its error printed);
//   - a program strategy naming a call (X-Bench-Call) with the key.
func TestCanaryKeyEveryPath(t *testing.T) {
	const (
		runKey   = "sk-canary-every-run-5f02c1"
		urlKey   = "sk-canary-every-userinfo-d81b" // --base-url's password
		queryKey = "sk-canary-every-query-2c6e"    // and its ?api-key=
		judgeKey = "sk-canary-every-judge-9a4d"
		inherit  = "svc-canary-inherited-31e7"
		given    = "svc-canary-given-0c58"
		argCred  = "svc-canary-arg-77d1"
		urlPass  = "svc-canary-urlpass-c3a0"
		urlToken = "svc-canary-urltoken-19be"
		hdrCred  = "svc-canary-header-e62f"
		gonePass = "svc-canary-gone-4b8a"
	)
	// The web server's user info reaches it as Basic authorization.
	basic := base64.StdEncoding.EncodeToString([]byte("mcpuser:" + urlPass))
	mcpCreds := []string{inherit, given, argCred, urlPass, urlToken, hdrCred, gonePass, basic}
	urlBasic := base64.StdEncoding.EncodeToString([]byte("runuser:" + urlKey))
	all := append([]string{runKey, urlKey, queryKey, urlBasic, judgeKey}, mcpCreds...)
	t.Setenv("MY_SERVICE_TOKEN", inherit)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("JUDGE_API_KEY", "")
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	var printed strings.Builder
	bench1 := func(wantCode int, args ...string) string {
		t.Helper()
		code, stdout, stderr := cli(t, args...)
		printed.WriteString(stdout + stderr)
		if code != wantCode {
			t.Fatalf("bench %s: exit %d, want %d: %s", strings.Join(args, " "), code, wantCode, stderr)
		}
		return stderr
	}

	// The run's key in every part of the base URL, an endpoint echoing
	// it, a judge elsewhere.
	model, modelLog := simEndpoint(t, true)
	judge, judgeLog := simEndpoint(t, false)
	base := strings.Replace(model.URL, "http://", "http://runuser:"+urlKey+"@", 1) + "/v1?api-key=" + queryKey
	bench1(0, "run", "--db", db, "--preset", "tot-creative/io", "--range", "0:2", "--base-url", base, "--api-key", runKey,
		"--model", "m", "--judge-base-url", judge.URL+"/v1", "--judge-model", "j", "--judge-api-key", judgeKey)
	if !strings.Contains(modelLog.all(), "Bearer "+runKey) {
		t.Fatalf("the run's endpoint never got the run's key: the echo tests nothing\n%.2000s", modelLog.all())
	}
	// Without a key, the URL's user info goes as Basic authorization,
	// which the endpoint echoes.
	bench1(0, "run", "--db", db, "--preset", "tot-creative/io", "--range", "2:3", "--base-url", base,
		"--model", "m", "--judge-base-url", judge.URL+"/v1", "--judge-model", "j", "--judge-api-key", judgeKey)
	if !strings.Contains(modelLog.all(), "Basic "+urlBasic) {
		t.Fatalf("the run's endpoint never got the URL's user info: the echo tests nothing\n%.2000s", modelLog.all())
	}
	if judgeLog.n() == 0 || !strings.Contains(judgeLog.all(), "Bearer "+judgeKey) {
		t.Fatalf("the judge was not called with its key (%d requests)", judgeLog.n())
	}
	st, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(context.Background(), 1)
	st.Close()
	if err != nil || len(items) != 2 || !strings.Contains(items[0].Output, "[redacted key]") {
		t.Fatalf("the creative run's items do not show the echoed key redacted: %+v %v", items, err)
	}

	// MCP servers with credentials on every path.
	tools, toolsLog := simEndpoint(t, false)
	mcpHandler := toolstest.New("1.0").Handler()
	mcpLog := &endpointLog{}
	mcpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcpLog.add(r)
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(mcpSrv.Close)
	dump := filepath.Join(dir, "local.dump")
	q := writeText(t, dir, "q.jsonl", strings.Join([]string{
		`{"question": "What environment variables does the local server process see (local get env)?", "answer": "x"}`,
		`{"question": "What command line arguments was the local server process started with (local get args)?", "answer": "x"}`,
		`{"question": "Which HTTP headers did the web server's request carry (web get headers)?", "answer": "x"}`,
		`{"question": "Which HTTP headers did the hdr server's request carry (hdr get headers)?", "answer": "x"}`,
	}, "\n")+"\n")
	webURL := strings.Replace(mcpSrv.URL, "http://", "http://mcpuser:"+urlPass+"@", 1) + "/mcp?token=" + urlToken + "&page=1"
	config := writeText(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {
		"local": {"command": %q, "args": ["--api-key", %q],
			"env": {%q: "1.0", %q: %q, "INNOCENT": %q, "WRAPPED": "x-%s-y", "JUDGE_COPY": "copy %s", "MY_SERVICE_TOKEN": "", "GIVEN_TOKEN": %q}},
		"web": {"url": %q},
		"hdr": {"url": %q, "headers": {"Authorization": "Bearer %s"}}}}`,
		os.Args[0], argCred, mcpChildEnv, toolstest.DumpEnv, dump, runKey, runKey, judgeKey, given, webURL, mcpSrv.URL+"/mcp", hdrCred))
	mcpArgs := []string{"run", "--db", db, "--base-url", tools.URL + "/v1", "--api-key", runKey, "--model", "m",
		"--task", "file:" + q, "--strategy", "react", "--set", "protocol=tools", "--set", "max_steps=2", "--concurrency", "1"}
	bench1(0, append(mcpArgs, "--mcp-config", config)...)
	given2, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MY_SERVICE_TOKEN=" + inherit, "GIVEN_TOKEN=" + given, argCred} {
		if !strings.Contains(string(given2), want) {
			t.Errorf("the local server was not given %s:\n%s", want, given2)
		}
	}
	for _, never := range []string{runKey, judgeKey, "INNOCENT=", "WRAPPED=", "JUDGE_COPY="} {
		if strings.Contains(string(given2), never) {
			t.Errorf("the local server was given %s:\n%s", never, given2)
		}
	}
	if mcp := mcpLog.all(); !strings.Contains(mcp, "token="+urlToken) || !strings.Contains(mcp, "Authorization: Bearer "+hdrCred) || !strings.Contains(mcp, "Basic "+basic) {
		t.Errorf("the URL servers did not get their credentials:\n%.3000s", mcp)
	}
	// Each tool echoing a credential was called, and shows it redacted.
	calls := itemToolCalls(t, db, 3)
	for i, tool := range []string{"get-env", "get-args", "get-headers", "get-headers"} {
		if len(calls[i]) == 0 || calls[i][0].External.Tool != tool || !strings.Contains(calls[i][0].Observation, "[redacted key]") {
			t.Errorf("item %d: want %s showing a redacted credential: %+v", i, tool, calls[i])
		}
	}
	// A server given the run's key in its arguments is refused; an
	// unreachable one is named without its URL's password.
	stderr := bench1(exitUsage, append(mcpArgs, "--mcp", "argkey="+os.Args[0]+" --token "+runKey)...)
	if !strings.Contains(stderr, "argument 2 holds a key") {
		t.Errorf("a server with the run's key in its arguments: %s", stderr)
	}
	stderr = bench1(exitUsage, append(mcpArgs, "--mcp", "gone=http://someone:"+gonePass+"@127.0.0.1:1/mcp?token="+gonePass)...)
	if !strings.Contains(stderr, "mcp server gone (http://127.0.0.1:1/mcp?token=REDACTED)") {
		t.Errorf("an unreachable server: %s", stderr)
	}

	// A program naming a call with the key.
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(runKey), 0o600)
	script, err := filepath.Abs("testdata/callname_key.py")
	if err != nil {
		t.Fatal(err)
	}
	bench1(0, "run", "--db", db, "--task", "game24", "--strategy", "program", "--range", "900:901",
		"--set", "cmd=python3 "+script+" "+keyFile, "--base-url", tools.URL+"/v1", "--model", "m", "--api-key", runKey)
	if st, err = store.OpenReadOnly(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	items, err = st.Items(context.Background(), 4)
	st.Close()
	if err != nil || len(items) != 1 || !strings.Contains(string(items[0].Detail), "refused 400") || !strings.Contains(string(items[0].Detail), "the name holds a key bench knows") {
		t.Errorf("the program's stderr does not show its call refused: %+v %v", items, err)
	}

	for _, where := range leaks(t, db, all, &printed) {
		t.Error(where)
	}
	for _, c := range all {
		if strings.Contains(printed.String(), c) {
			t.Errorf("bench printed %s", c)
		}
	}
	// What each endpoint received: the judge nothing of the run's; the
	// model none of a judge's or tool server's credentials; the tool
	// server none of bench's keys.
	for _, c := range append([]string{runKey, urlKey, queryKey, urlBasic}, mcpCreds...) {
		if strings.Contains(judgeLog.all(), c) {
			t.Errorf("the judge's endpoint received %s", c)
		}
	}
	for _, c := range append([]string{judgeKey}, mcpCreds...) {
		if strings.Contains(modelLog.all()+toolsLog.all(), c) {
			t.Errorf("a model endpoint received %s", c)
		}
	}
	for _, c := range []string{runKey, urlKey, queryKey, judgeKey, inherit, given, argCred} {
		if strings.Contains(mcpLog.all(), c) {
			t.Errorf("the MCP server over HTTP received %s", c)
		}
	}
}
