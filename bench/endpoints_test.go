package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestParseEndpoint(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want Endpoint
		err  string
	}{
		{"local=http://127.0.0.1:8000/v1", Endpoint{Name: "local", URL: "http://127.0.0.1:8000/v1"}, ""},
		{"oa=https://api.openai.com/v1,OPENAI_API_KEY", Endpoint{Name: "oa", URL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY"}, ""},
		{"=http://x/v1", Endpoint{}, "NAME=URL"},
		{"1a=http://x/v1", Endpoint{}, "NAME=URL"},
		{"a=ftp://x", Endpoint{}, "not an http(s) URL"},
		{"a=http://x/v1,bad key", Endpoint{}, "environment variable"},
		{"noequals", Endpoint{}, "NAME=URL"},
	} {
		got, err := ParseEndpoint(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %+v, %v", c.in, got, err)
		}
	}
}

// counted is a simulator served over HTTP that counts its model requests
// (POSTs: not the GET /v1/models probe a run starts with) and the keys
// they carry.
func counted(t *testing.T, skill float64) (*httptest.Server, *atomic.Int64, *atomic.Value) {
	t.Helper()
	p := sim.DefaultParams()
	p.Skill = skill
	m, err := NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	var key atomic.Value
	h := llm.NewServer(m, llm.ServerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			n.Add(1)
		}
		key.Store(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &key
}

// Agents of different models on two endpoints: each agent's calls go to
// its own, with that endpoint's key, every call records its model, and the
// transcript names each agent's.
func TestDebateAgentsOnTheirOwnEndpoints(t *testing.T) {
	t.Parallel()
	strong, nStrong, keyStrong := counted(t, 0.95)
	weak, nWeak, keyWeak := counted(t, 0.05)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency = "game24", "debate", "900:906", 8
	cfg.Params = map[string]any{"agents": 3, "rounds": 2, "temperature": 0.7, "models": "sim@strong,sim@weak,sim@weak"}
	cfg.NamedEndpoints = []Endpoint{{Name: "strong", URL: strong.URL + "/v1", KeyEnv: "STRONG_KEY"}, {Name: "weak", URL: weak.URL + "/v1"}}
	cfg.NamedKeys = map[string]string{"strong": "sk-strong"}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if nStrong.Load() != 6*2 || nWeak.Load() != 6*2*2 {
		t.Errorf("strong endpoint %d calls, weak %d; want 12 (agent 1) and 24 (agents 2, 3)", nStrong.Load(), nWeak.Load())
	}
	if k, _ := keyStrong.Load().(string); k != "Bearer sk-strong" {
		t.Errorf("the strong endpoint got key %q", k)
	}
	if k, _ := keyWeak.Load().(string); strings.Contains(k, "sk-strong") {
		t.Errorf("the strong endpoint's key went to the weak one: %q", k)
	}
	items, _ := st.Items(context.Background(), sum.RunID)
	strongRight, weakRight := 0, 0
	for _, it := range items {
		var d struct {
			Models []string `json:"models"`
			Rounds []struct {
				Turns []struct{ Correct bool } `json:"turns"`
			} `json:"rounds"`
		}
		if err := json.Unmarshal(it.Detail, &d); err != nil || len(d.Models) != 3 || d.Models[1] != "sim@weak" {
			t.Fatalf("item %d transcript models %v: %v", it.Index, d.Models, err)
		}
		if d.Rounds[0].Turns[0].Correct {
			strongRight++
		}
		if d.Rounds[0].Turns[1].Correct {
			weakRight++
		}
		calls, err := st.Calls(context.Background(), sum.RunID, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			var req llm.Request
			var resp llm.Response
			if json.Unmarshal(c.Request, &req) != nil || json.Unmarshal(c.Response, &resp) != nil {
				t.Fatalf("call %d unreadable", c.ID)
			}
			want := "sim@weak"
			if strings.HasSuffix(req.Call, "/a0") {
				want = "sim@strong"
			}
			if resp.Model != want {
				t.Errorf("call %s answered by %q, want %s", req.Call, resp.Model, want)
			}
		}
	}
	if strongRight <= weakRight {
		t.Errorf("first round: the skilled endpoint's agent right %d times, the unskilled one's %d", strongRight, weakRight)
	}

	// An agent's model on an endpoint nobody named is refused before the
	// run is stored.
	cfg.NamedEndpoints = cfg.NamedEndpoints[:1]
	if _, err := (&Engine{Store: st}).Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "no endpoint weak") {
		t.Errorf("unknown endpoint: %v", err)
	}
}

// The judge flags serve debate's final=judge, and are refused when the
// debate asks no judge.
func TestDebateJudgeFlags(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.JudgeModel = "game24", "debate", "900:903", SimModel+"-judge"
	cfg.Params = map[string]any{"agents": 2, "rounds": 2, "temperature": 0.7}
	if _, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--judge-model") {
		t.Errorf("judge flags on a majority debate: %v", err)
	}
	srv, _ := simServer(t, cfg, llm.ServerOptions{})
	cfg.JudgeBaseURL = srv.URL + "/v1"
	cfg.Params["final"] = "judge"
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := st.Calls(context.Background(), sum.RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, c := range calls {
		if c.Purpose == "judge" {
			judged++
		}
	}
	if judged != 3 || sum.Calls != 3*(2*2+1) {
		t.Errorf("%d judge calls of %d, want one per item", judged, sum.Calls)
	}
}

// A judge model MODEL@NAME is on the named endpoint, with its key.
func TestJudgeOnANamedEndpoint(t *testing.T) {
	t.Parallel()
	judgeSrv, n, key := counted(t, 0.9)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "debate", "900:902"
	cfg.Params = map[string]any{"agents": 2, "rounds": 1, "final": "judge", "temperature": 0.7}
	cfg.JudgeModel = "sim@j"
	if err := Check(cfg); err == nil || !strings.Contains(err.Error(), "no endpoint j") {
		t.Errorf("a judge on an unnamed endpoint: %v", err)
	}
	cfg.NamedEndpoints = []Endpoint{{Name: "j", URL: judgeSrv.URL + "/v1", KeyEnv: "J_KEY"}}
	cfg.NamedKeys = map[string]string{"j": "sk-judge"}
	if m, u := cfg.Judge(); m != "sim" || u != judgeSrv.URL+"/v1" {
		t.Errorf("judge %s at %s", m, u)
	}
	if _, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Errorf("%d calls reached the judge's endpoint, want one per item", n.Load())
	}
	if k, _ := key.Load().(string); k != "Bearer sk-judge" {
		t.Errorf("the judge's endpoint got key %q", k)
	}
	cfg.JudgeBaseURL = "http://127.0.0.1:1/v1"
	if err := Check(cfg); err == nil || !strings.Contains(err.Error(), "drop --judge-base-url") {
		t.Errorf("both: %v", err)
	}
}

// An experiment file names endpoints as --endpoint does (endpoints: NAME:
// URL[,KEY_ENV]); its debate agents' calls go to them with the key from
// the variable named, and a name given twice is refused with its line.
func TestExperimentFileEndpoints(t *testing.T) {
	a, nA, keyA := counted(t, 0.9)
	b, nB, _ := counted(t, 0.1)
	t.Setenv("EXP_A_KEY", "sk-exp-a")
	dir := t.TempDir()
	path := filepath.Join(dir, "e.yaml")
	body := "task: game24\nrange: \"900:902\"\nendpoints:\n  a: \"" + a.URL + "/v1,EXP_A_KEY\"\n  b: \"" + b.URL + "/v1\"\n" +
		"strategies:\n  - debate: {agents: 2, rounds: 1, temperature: 0.7, models: \"sim@a,sim@b\"}\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	exp, err := LoadExperiment(path, DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 1 || len(exp.Runs[0].NamedEndpoints) != 2 {
		t.Fatalf("runs %+v", exp.Runs)
	}
	if _, err := (&Engine{Store: tempStore(t)}).RunExperiment(context.Background(), exp, Keys{}); err != nil {
		t.Fatal(err)
	}
	if nA.Load() != 2 || nB.Load() != 2 {
		t.Errorf("endpoint a got %d calls, b %d; want 2 each (one agent, one round, two items)", nA.Load(), nB.Load())
	}
	if k, _ := keyA.Load().(string); k != "Bearer sk-exp-a" {
		t.Errorf("endpoint a got key %q", k)
	}
	base := DefaultConfig()
	base.NamedEndpoints = []Endpoint{{Name: "a", URL: "http://127.0.0.1:1/v1"}}
	if _, err := LoadExperiment(path, base, 0); err == nil || !strings.Contains(err.Error(), "named twice") || !strings.Contains(err.Error(), ":4") {
		t.Errorf("an endpoint named by flag and file: %v", err)
	}
}
