package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// runRow reads run id's row.
func runRow(t *testing.T, db string, id int64) store.Run {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A run against bench serve-sim is stored simulated, with the server's
// parameters, whatever model name it sends; the cost is still priced by
// the name sent.
func TestRunAgainstServeSimIsSimulated(t *testing.T) {
	t.Parallel()
	url := startServeSim(t, "--sim-skill", "0.95", "--sim-slip", "0.02")
	db := filepath.Join(t.TempDir(), "b.db")
	for i, model := range []string{"Qwen/Qwen3-8B", "sim", "gpt-4o"} {
		sum := runJSON(t, "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:902", "--base-url", url, "--model", model)
		r := runRow(t, db, sum.RunID)
		var p struct{ Skill, Slip float64 }
		json.Unmarshal(r.SimParams, &p)
		if !r.Simulated || !sum.Simulated || p.Skill != 0.95 || p.Slip != 0.02 || r.Model != model {
			t.Errorf("--model %s: stored model %s, simulated %v, sim_params %s", model, r.Model, r.Simulated, r.SimParams)
		}
		if i == 2 && sum.Cost == 0 {
			t.Errorf("--model gpt-4o: cost 0, want priced by the name sent")
		}
	}
}

// With --served-model-name, serve-sim answers only those names (vLLM's
// 404 for others) and bench refuses a run of another model in one line
// naming them; no route answers without /v1 (the reward routes stay at
// the root); every answer carries the simulator's fingerprint.
func TestServeSimServedModelNames(t *testing.T) {
	t.Parallel()
	url := startServeSim(t, "--served-model-name", "Qwen/Qwen3-8B", "qwen-alias", "--sim-skill", "0.9")
	db := filepath.Join(t.TempDir(), "b.db")
	code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901", "--base-url", url, "--model", "Qwen/Qwen3-9B")
	if code != exitUsage || !strings.Contains(stderr, "model Qwen/Qwen3-9B is not served at") || !strings.Contains(stderr, "it serves Qwen/Qwen3-8B, qwen-alias") {
		t.Errorf("another name: exit %d, %q", code, stderr)
	}
	oneLine(t, "not served", stderr)
	sum := runJSON(t, "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901", "--base-url", url, "--model", "qwen-alias")
	if !sum.Simulated {
		t.Errorf("a served name: %+v", sum)
	}
	root := strings.TrimSuffix(url, "/v1")
	body := `{"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "hi"}]}`
	for _, c := range []struct {
		path, body string
		want       int
	}{
		{"/v1/chat/completions", body, 200},
		{"/chat/completions", body, 404},
		{"/completions", `{"model": "Qwen/Qwen3-8B", "prompt": "hi"}`, 404},
		{"/v1/chat/completions", `{"model": "other", "messages": [{"role": "user", "content": "hi"}]}`, 404},
		{"/v1/completions", `{"model": "other", "prompt": "hi"}`, 404},
		{"/pooling", `{"model": "sim", "messages": [{"role": "user", "content": "1+1=2"}]}`, 200},
	} {
		resp, err := http.Post(root+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("POST %s %s: %d, want %d", c.path, c.body, resp.StatusCode, c.want)
		}
		if c.path == "/v1/chat/completions" && c.want == 200 && !strings.HasPrefix(got["system_fingerprint"].(string), "fp_reasonbench_sim_") {
			t.Errorf("no fingerprint: %v", got)
		}
		if c.want == 404 && strings.Contains(c.body, "other") {
			if e, _ := got["error"].(map[string]any); e == nil || e["message"] != "The model `other` does not exist." || e["type"] != "NotFoundError" {
				t.Errorf("404 body %v", got)
			}
		}
	}
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []map[string]any `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 2 || models.Data[0]["id"] != "Qwen/Qwen3-8B" || models.Data[0]["reasonbench_sim"] == nil {
		t.Errorf("/v1/models: %v", models.Data)
	}
}

// --base-url without --model names the models the endpoint serves; a
// serve-sim answering any name (or a server listing "sim") runs as before.
func TestBaseURLWithoutModel(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	strict := startServeSim(t, "--served-model-name", "Qwen/Qwen3-8B")
	code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901", "--base-url", strict)
	if code != exitUsage || !strings.Contains(stderr, "without --model: pass --model NAME; it serves Qwen/Qwen3-8B") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	oneLine(t, "no model", stderr)
	code, _, stderr = cli(t, "run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901", "--base-url", "http://127.0.0.1:1/v1")
	if code != exitUsage || !strings.Contains(stderr, "pass --model NAME, the endpoint's model") {
		t.Errorf("unreachable: exit %d, %q", code, stderr)
	}
	anyName := startServeSim(t)
	if s := runJSON(t, "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901", "--base-url", anyName); !s.Simulated {
		t.Errorf("%+v", s)
	}
}
