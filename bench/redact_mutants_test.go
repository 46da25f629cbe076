package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/store"
)

// TestRegisterKeysNamedEndpoints: a named endpoint's key, read from the
// variable its KEY_ENV names, is a key bench keeps from what it stores.
func TestRegisterKeysNamedEndpoints(t *testing.T) {
	const canary = "sk-canary-named-endpoint-61fa"
	t.Setenv("REASONBENCH_TEST_EP_KEY", canary+"\n")
	cfg := DefaultConfig()
	cfg.NamedEndpoints = []Endpoint{{Name: "other", URL: "http://127.0.0.1:9/v1", KeyEnv: "REASONBENCH_TEST_EP_KEY"}}
	registerKeys(cfg)
	if got := redact("Authorization: Bearer " + canary); got != "Authorization: Bearer "+secrets.Marker {
		t.Errorf("a named endpoint's key is not redacted: %q", got)
	}
}

// TestRedactItemEveryText: what an item stores of a program's text, its
// output, error and detail, holds no registered key.
func TestRedactItemEveryText(t *testing.T) {
	const canary = "sk-canary-item-text-0b77"
	secrets.Process.Add(canary)
	detail, _ := json.Marshal(map[string]string{"stderr_tail": "stolen " + canary})
	it := redactItem(store.Item{Index: 3, Output: "answer " + canary, Error: "failed with " + canary, Detail: detail})
	if it.Output != "answer "+secrets.Marker || it.Error != "failed with "+secrets.Marker ||
		string(it.Detail) != `{"stderr_tail":"stolen `+secrets.Marker+`"}` || it.Index != 3 {
		t.Errorf("redacted item %+v (detail %s)", it, it.Detail)
	}
}

// TestStoredTextsRedacted: a trajectory step (a tool's observation
// quoting a key), a tree node's thought and a sandboxed program's stdout
// and stderr are stored without the registered key.
func TestStoredTextsRedacted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-stored-texts-9c24"
	secrets.Process.Add(canary)
	ctx := context.Background()
	st := tempStore(t)
	id := newRunRow(t, st)
	tr := itemTrace{st: st, run: id, index: 2}
	if err := tr.Step(ctx, 0, 1, "observation", "the tool says "+canary); err != nil {
		t.Fatal(err)
	}
	steps, err := st.Steps(ctx, id, 2)
	if err != nil || len(steps) != 1 || steps[0].Content != "the tool says "+secrets.Marker {
		t.Errorf("stored steps %+v, %v", steps, err)
	}
	x := itemExecutor{runner: scriptedRunner{res: sandbox.Result{Status: sandbox.Exit, ExitCode: 1,
		Stdout: "out " + canary, Stderr: "Traceback: KeyError: '" + canary + "'"}}, st: st, run: id, index: 2}
	if _, err := x.Execute(ctx, "hidden", sandbox.Program{Source: "print(open('key').read())"}); err != nil {
		t.Fatal(err)
	}
	execs, err := st.Executions(ctx, id, 2)
	if err != nil || len(execs) != 1 || execs[0].Stdout != "out "+secrets.Marker || execs[0].Stderr != "Traceback: KeyError: '"+secrets.Marker+"'" {
		t.Errorf("stored executions %+v, %v", execs, err)
	}
}

// TestFailedRunMessageRedacted: an endpoint whose refusal quotes a key
// the run knows but did not send it (a named endpoint's: the client
// removes only its own) fails the run; the stored message does not hold
// the key.
func TestFailedRunMessageRedacted(t *testing.T) {
	t.Parallel()
	const canary = "sk-canary-failed-run-e410"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error": {"message": "Incorrect API key provided: `+canary+`", "type": "invalid_request_error", "code": "invalid_api_key"}}`)
	}))
	defer srv.Close()
	cfg := cotConfig(2, "0:2")
	cfg.BaseURL, cfg.Model, cfg.APIKey, cfg.Retries = srv.URL+"/v1", "m", "sk-the-run-own-key", 0
	cfg.NamedKeys = map[string]string{"other": canary}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err == nil || sum.Status != store.StatusFailed {
		t.Fatalf("the run did not fail: %+v, %v", sum, err)
	}
	if !strings.Contains(err.Error(), canary) {
		t.Fatalf("the returned error does not quote the key (the stored message would not test the layer): %v", err)
	}
	r, err := st.GetRun(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Error, canary) || !strings.Contains(r.Error, "Incorrect API key provided: "+secrets.Marker) {
		t.Errorf("stored run message %q", r.Error)
	}
}
