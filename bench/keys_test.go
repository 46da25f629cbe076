package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
)

// A program that learns the run's key (as it could from bench's command
// line) and writes it to stderr, into a request and into its answer
// leaves no trace of it in the database: the stored stderr tail, output,
// requests and the model's view are redacted.
func TestProgramKeyRedacted(t *testing.T) {
	const canary = "sk-canary-engine-5d1e77"
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(canary), 0o600)
	seen := make(chan string, 16)
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		b, _ := json.Marshal(req)
		seen <- string(b)
		return model.Sample(ctx, req)
	})
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "program", "900:902"
	cfg.APIKey = canary
	cfg.Params = map[string]any{"cmd": "python3 " + mustAbs(t, "testdata/steal_key.py") + " " + keyFile}
	st := tempStore(t)
	sum, err := (&Engine{Store: st, Backend: backend}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	close(seen)
	n := 0
	for req := range seen {
		n++
		if strings.Contains(req, canary) {
			t.Errorf("the model was sent the key: %s", req)
		}
	}
	if n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
	items, _ := st.Items(context.Background(), sum.RunID)
	for _, it := range items {
		var d strategies.ProgramDetail
		json.Unmarshal(it.Detail, &d)
		if !strings.Contains(d.StderrTail, "stolen: [redacted key]") || it.Output != "answer [redacted key]" {
			t.Errorf("item %d: output %q, stderr %q", it.Index, it.Output, d.StderrTail)
		}
		calls, _ := st.Calls(context.Background(), sum.RunID, it.Index)
		for _, c := range calls {
			if bytes.Contains(c.Request, []byte(canary)) || !bytes.Contains(c.Request, []byte("[redacted key]")) {
				t.Errorf("item %d: stored request %s", it.Index, c.Request)
			}
		}
	}
	st.Close()
	for _, f := range []string{st.Path(), st.Path() + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s holds the key", f)
		}
	}
}

// A request the server refuses with 400 is the program's to handle: the
// program gets the 400 (not a 500) and its item fails alone; the run
// finishes and the other items answer.
func TestProgramBadRequestFailsItsItemOnly(t *testing.T) {
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	api := llm.NewServer(model, llm.ServerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("REFUSE")) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error": {"message": "This model's maximum context length is 10 tokens", "type": "invalid_request_error", "param": null, "code": null}}`)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "program", "900:903"
	cfg.BaseURL, cfg.Model, cfg.Retries = srv.URL+"/v1", "m", 0
	cfg.Params = map[string]any{"cmd": `python3 -c '
import json, os, sys, urllib.request as u, urllib.error as e
item = json.loads(sys.stdin.readline())
word = "REFUSE" if item["index"] == 901 else "hello"
body = {"model": "m", "messages": [{"role": "user", "content": word}]}
r = u.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json.dumps(body).encode(),
    {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
try:
    u.urlopen(r).read()
except e.HTTPError as err:
    print("status", err.code, file=sys.stderr)
    sys.exit(3)
print(json.dumps({"output": "ok"}))
'`}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("the run stopped: %v", err)
	}
	if sum.Status != store.StatusDone || sum.N != 3 {
		t.Fatalf("%+v", sum)
	}
	items, _ := st.Items(context.Background(), sum.RunID)
	for _, it := range items {
		var d strategies.ProgramDetail
		json.Unmarshal(it.Detail, &d)
		switch {
		case it.Index == 901 && (!strings.HasPrefix(d.Failure, "exit status 3; the endpoint refused 1") || d.StderrTail != "status 400\n"):
			t.Errorf("the refused item: %+v", d)
		case it.Index != 901 && (it.Output != "ok" || d.Failure != ""):
			t.Errorf("item %d: %q %+v", it.Index, it.Output, d)
		}
	}
}

// authRecorder serves h and records each request's Authorization header.
type authRecorder struct {
	mu   sync.Mutex
	seen map[string]int
	h    http.Handler
}

func (a *authRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	if a.seen == nil {
		a.seen = map[string]int{}
	}
	a.seen[r.Header.Get("Authorization")]++
	a.mu.Unlock()
	a.h.ServeHTTP(w, r)
}

func (a *authRecorder) only(t *testing.T, who, want string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) != 1 || a.seen[want] == 0 {
		t.Errorf("%s got Authorization %v, want only %q", who, a.seen, want)
	}
}

// The judge on its own endpoint gets its own key (--judge-api-key), or
// none: never the run's, whether given as a flag or in $OPENAI_API_KEY.
func TestJudgeKey(t *testing.T) {
	const runKey = "sk-RUN-canary-31c9"
	t.Setenv("OPENAI_API_KEY", runKey)
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	for _, judgeKey := range []string{"", "sk-JUDGE-4d2a"} {
		runSrv := &authRecorder{h: llm.NewServer(model, llm.ServerOptions{})}
		judgeSrv := &authRecorder{h: llm.NewServer(&judgeStub{}, llm.ServerOptions{})}
		rs, js := httptest.NewServer(runSrv), httptest.NewServer(judgeSrv)
		cfg, err := ApplyPreset(DefaultConfig(), "tot-creative/io")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Range, cfg.Model, cfg.BaseURL, cfg.APIKey = "0:1", "m", rs.URL+"/v1", runKey
		cfg.JudgeModel, cfg.JudgeBaseURL, cfg.JudgeAPIKey = "judge-x", js.URL+"/v1", judgeKey
		sum, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg)
		rs.Close()
		js.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Metrics["coherency"] != 9 {
			t.Fatalf("the judge did not judge: %+v", sum.Metrics)
		}
		runSrv.only(t, "the run's endpoint", "Bearer "+runKey)
		want := ""
		if judgeKey != "" {
			want = "Bearer " + judgeKey
		}
		judgeSrv.only(t, "the judge's endpoint", want)
	}
}

// servedSim is bench serve-sim's API (its model card and fingerprint) over
// the simulator with skill.
func servedSim(t *testing.T, skill float64) *httptest.Server {
	t.Helper()
	p := DefaultConfig().Sim
	p.Skill = skill
	m, err := NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	card, fp := SimCard(p, true)
	srv := httptest.NewServer(llm.NewServer(m, llm.ServerOptions{Card: card, Fingerprint: fp, V1Only: true}))
	t.Cleanup(srv.Close)
	return srv
}

// Debate agents on two named endpoints that are bench serve-sim: the run
// is stored simulated, and its spec has each endpoint's own parameters;
// on a plain OpenAI-compatible server (no card) it is not.
func TestSimEndpointsRecorded(t *testing.T) {
	t.Parallel()
	a, b := servedSim(t, 0.93), servedSim(t, 0.07)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "debate", "900:902"
	cfg.Params = map[string]any{"agents": 2, "rounds": 1, "temperature": 0.7, "models": "qwen@a,llama@b"}
	cfg.NamedEndpoints = []Endpoint{{Name: "a", URL: a.URL + "/v1"}, {Name: "b", URL: b.URL + "/v1"}}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := st.GetRun(context.Background(), sum.RunID)
	var spec struct {
		SimEndpoints map[string]struct{ Skill float64 } `json:"sim_endpoints"`
	}
	json.Unmarshal(r.Spec, &spec)
	if !r.Simulated || spec.SimEndpoints["a"].Skill != 0.93 || spec.SimEndpoints["b"].Skill != 0.07 {
		t.Errorf("simulated %v, sim_endpoints %+v", r.Simulated, spec.SimEndpoints)
	}
	// A judge on a serve-sim of its own: the scores are simulated.
	cfg, err = ApplyPreset(DefaultConfig(), "tot-creative/io")
	if err != nil {
		t.Fatal(err)
	}
	judge := httptest.NewServer(llm.NewServer(&judgeStub{}, llm.ServerOptions{Card: map[string]any{llm.SimCardField: simCard{Params: DefaultConfig().Sim, AnyName: true}}}))
	defer judge.Close()
	cfg.Range, cfg.JudgeModel, cfg.JudgeBaseURL = "0:1", "j", judge.URL+"/v1"
	sum, err = (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, _ = st.GetRun(context.Background(), sum.RunID)
	spec.SimEndpoints = nil
	json.Unmarshal(r.Spec, &spec)
	if _, ok := spec.SimEndpoints["judge"]; !r.Simulated || !ok {
		t.Errorf("a judge on serve-sim: simulated %v, sim_endpoints %+v", r.Simulated, spec.SimEndpoints)
	}
	plain, _ := NewSim(DefaultConfig().Sim)
	srv := httptest.NewServer(llm.NewServer(plain, llm.ServerOptions{}))
	defer srv.Close()
	cfg = DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Model, cfg.BaseURL = "game24", "cot", "900:901", "m", srv.URL+"/v1"
	sum, err = (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := st.GetRun(context.Background(), sum.RunID); r.Simulated || string(r.SimParams) != "{}" {
		t.Errorf("a server without the card: simulated %v %s", r.Simulated, r.SimParams)
	}
}

// A real server's 404 for the run's model stops the run with one line
// naming the models it lists.
func TestNotServedNamesTheServedModels(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "object": "model"}]}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error": {"message": "The model `+"`qwen3`"+` does not exist.", "type": "NotFoundError", "param": "model", "code": 404}}`)
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Model, cfg.BaseURL, cfg.Retries = "game24", "cot", "900:901", "qwen3", srv.URL+"/v1", 0
	_, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "model qwen3 is not served at") || !strings.Contains(err.Error(), "it serves Qwen/Qwen3-8B; pass --model Qwen/Qwen3-8B") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("%v", err)
	}
}
