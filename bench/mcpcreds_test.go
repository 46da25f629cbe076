package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// recordingMCP is a toolstest server over HTTP that keeps every request
// it receives (URL, headers, body) as text.
func recordingMCP(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	handler := toolstest.New("1.0").Handler()
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, true) // restores the body
		mu.Lock()
		seen = append(seen, string(dump))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// recordingSampler keeps the text of every request a model was sent.
type recordingSampler struct {
	next llm.Sampler
	mu   sync.Mutex
	sent []string
}

func (r *recordingSampler) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(m.Content + "\n")
	}
	r.mu.Lock()
	r.sent = append(r.sent, b.String())
	r.mu.Unlock()
	return r.next.Sample(ctx, req)
}

// mcpCredsConfig is a react run on questions that make the simulated
// model call get-headers, over an MCP server reached with a token in its
// URL and a credential in a header.
func mcpCredsConfig(t *testing.T, url string, headers map[string]string) Config {
	t.Helper()
	var rows strings.Builder
	for i := range 4 {
		fmt.Fprintf(&rows, `{"id": "q%d", "question": "Which HTTP headers (get headers) did the request carry?", "answer": "none"}`+"\n", i)
	}
	q := writeFile(t, t.TempDir(), "q.jsonl", rows.String())
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Concurrency = FileTaskPrefix+q, "react", 1
	cfg.Params = map[string]any{"protocol": "tools", "max_steps": 2}
	cfg.Sim.Skill, cfg.Sim.Slip = 1, 0
	cfg.MCP = []tools.Server{{Name: "web", URL: url, Headers: headers}}
	return cfg
}

// TestMCPCredentialsStoredNowhere: a server's URL token and header value
// reach the server on every request and nowhere else: not the model (a
// tool's output quoting the header is redacted before it is shown), not
// the stored spec, items, steps or tool cache (the database file and its
// WAL), while the redaction marker shows where the header was.
func TestMCPCredentialsStoredNowhere(t *testing.T) {
	const urlCred, hdrCred, runKey = "mcp-url-cred-8c21f0", "mcp-hdr-cred-4d77a9", "sk-run-mcpcreds-61e0"
	ts, seen := recordingMCP(t)
	cfg := mcpCredsConfig(t, ts.URL+"/mcp?token="+urlCred+"&v=2", map[string]string{"Authorization": "Bearer " + hdrCred})
	cfg.APIKey = runKey
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingSampler{next: model}
	dir := t.TempDir()
	path := dir + "/b.db"
	empty, err := emptyDatabase()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, empty, 0o644)
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := (&Engine{Store: st, Backend: rec}).Run(context.Background(), cfg)
	if err != nil || sum.N != 4 {
		t.Fatalf("run: %+v %v", sum, err)
	}
	requests := seen()
	if len(requests) == 0 {
		t.Fatal("the MCP server got no request")
	}
	for _, r := range requests {
		if !strings.Contains(r, "token="+urlCred) || !strings.Contains(r, "Authorization: Bearer "+hdrCred) || strings.Contains(r, runKey) {
			t.Errorf("a request to the MCP server:\n%.600s", r)
		}
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil || len(items) != 4 {
		t.Fatal(items, err)
	}
	if !bytes.Contains(items[0].Detail, []byte("Authorization: "+secrets.Marker)) {
		t.Errorf("the item's tool call lacks the redacted header:\n%.3000s", items[0].Detail)
	}
	for _, s := range rec.sent {
		if strings.Contains(s, hdrCred) || strings.Contains(s, urlCred) {
			t.Errorf("the model was sent a server's credential:\n%.2000s", s)
		}
	}
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, c := range []string{urlCred, hdrCred, runKey} {
			if bytes.Contains(b, []byte(c)) {
				t.Errorf("%s holds %s", f, c)
			}
		}
	}
}

// TestResumeGivesMCPCredentialsAgain: a run whose MCP server's
// credentials were not stored is resumed only with the server given again
// (ResumeOptions.MCP, bench resume --mcp-config), which then reaches the
// server with them; a server the run did not have is refused.
func TestResumeGivesMCPCredentialsAgain(t *testing.T) {
	const urlCred = "mcp-resume-cred-0b93"
	ts, seen := recordingMCP(t)
	url := ts.URL + "/mcp?token=" + urlCred
	cfg := mcpCredsConfig(t, url, nil)
	st := tempStore(t)
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := (&Engine{Store: st, Backend: &cancelAfter{next: model, n: 3, cancel: cancel}}).Run(ctx, cfg)
	if err == nil || sum.N >= 4 {
		t.Fatalf("the run was not interrupted: %+v %v", sum, err)
	}
	eng := &Engine{Store: st, Backend: model}
	_, err = eng.ResumeWith(context.Background(), sum.RunID, ResumeOptions{})
	var ce ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "mcp server web") || !strings.Contains(err.Error(), "--mcp-config") {
		t.Fatalf("resume without the server: %v", err)
	}
	_, err = eng.ResumeWith(context.Background(), sum.RunID, ResumeOptions{MCP: []tools.Server{{Name: "other", URL: url}}})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "no mcp server other") {
		t.Fatalf("resume with another server: %v", err)
	}
	before := len(seen())
	done, err := eng.ResumeWith(context.Background(), sum.RunID, ResumeOptions{MCP: cfg.MCP})
	if err != nil || done.N != 4 || done.Status != store.StatusDone {
		t.Fatalf("resume with the server: %+v %v", done, err)
	}
	after := seen()[before:]
	if len(after) == 0 {
		t.Fatal("the resumed run reached no MCP server")
	}
	for _, r := range after {
		if !strings.Contains(r, "token="+urlCred) {
			t.Errorf("a resumed request without the token:\n%.300s", r)
		}
	}
}

// TestContinueWithURLCredentials: an experiment (bench run --continue, -f)
// resumes its unfinished run whose base URL held credentials, with the URL
// it is configured with, rather than refusing it for want of one.
func TestContinueWithURLCredentials(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Params, cfg.Concurrency = FileTaskPrefix+writeFile(t, dir, "qa.jsonl", qaRows), "cot", map[string]any{"k": 1}, 1
	cfg.BaseURL, cfg.Model = "http://someone:url-cont-cred-5d1e@127.0.0.1:9/v1?api-key=url-cont-cred-77a0", "m"
	st := tempStore(t)
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sum, err := (&Engine{Store: st, Backend: &cancelAfter{next: model, n: 2, cancel: cancel}}).RunExperiment(ctx, Experiment{Runs: []Config{cfg}}, Keys{})
	if err == nil {
		t.Fatalf("the run was not interrupted: %+v", sum)
	}
	sums, err := (&Engine{Store: st, Backend: model}).RunExperiment(context.Background(), Experiment{Runs: []Config{cfg}}, Keys{})
	if err != nil || len(sums) != 1 || sums[0].RunID != 1 || sums[0].N != 6 || sums[0].Status != store.StatusDone {
		t.Fatalf("continue: %+v %v", sums, err)
	}
}
