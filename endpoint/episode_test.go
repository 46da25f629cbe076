package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeEnv records the actions it is given and answers as a scripted
// episode: "stop" ends it, "refuse" is refused, "boom" fails.
type fakeEnv struct {
	mu      sync.Mutex
	resets  int
	actions []string
}

func (f *fakeEnv) Reset(_ context.Context, idx *int) (EnvReset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
	info := map[string]any{"source": "user"}
	if idx != nil {
		info["task_index"] = *idx
	}
	return EnvReset{Observation: "hello", Info: info}, nil
}

func (f *fakeEnv) Step(_ context.Context, name string, kwargs json.RawMessage) (EnvStep, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, name+" "+string(kwargs))
	switch name {
	case "refuse":
		return EnvStep{}, EnvRefusal{Status: http.StatusConflict, Message: "the episode is over"}
	case "boom":
		return EnvStep{}, errors.New("the user's model is down")
	case "stop":
		return EnvStep{Observation: "bye", Reward: 1, Done: true, Info: map[string]any{"source": name}}, nil
	}
	return EnvStep{Observation: "ok " + name, Info: map[string]any{"source": name}}, nil
}

// serveEnv is an item endpoint with an echo model and a fake episode.
func serveEnv(t *testing.T) (base, token string, env *fakeEnv, model *echo, log *Log) {
	t.Helper()
	token, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	env, model, log = &fakeEnv{}, &echo{}, &Log{}
	h := WithEnv(ItemServer(model, "program", log), EnvServer(env, log))
	l, err := Listen("127.0.0.1:0", token, &Handler{Token: token, Log: log, Item: func(int) (http.Handler, error) { return h, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return strings.TrimSuffix(l.URL, "/v1"), token, env, model, log
}

func TestEnvServer(t *testing.T) {
	base, token, env, model, log := serveEnv(t)
	// The OpenAI side still answers beside the environment.
	if code, body := post(t, base+"/v1/chat/completions", token, `{"messages":[{"role":"user","content":"hi"}]}`); code != 200 || len(model.calls) != 1 {
		t.Fatalf("chat beside the environment: %d %s", code, body)
	}
	code, body := post(t, base+"/env/reset", token, `{"task_index": 3}`)
	var reset EnvReset
	if code != 200 || json.Unmarshal([]byte(body), &reset) != nil || reset.Observation != "hello" || reset.Info["task_index"] != 3.0 {
		t.Fatalf("reset: %d %s", code, body)
	}
	if code, body := post(t, base+"/env/reset", token, ""); code != 200 || env.resets != 2 {
		t.Fatalf("reset without a body: %d %s", code, body)
	}
	code, body = post(t, base+"/env/step", token, `{"name": "get_user_details", "kwargs": {"user_id": "x"}}`)
	var step EnvStep
	if code != 200 || json.Unmarshal([]byte(body), &step) != nil || step.Observation != "ok get_user_details" || step.Done || step.Reward != 0 {
		t.Fatalf("step: %d %s", code, body)
	}
	code, body = post(t, base+"/env/step", token, `{"name": "stop", "kwargs": {}}`)
	if code != 200 || json.Unmarshal([]byte(body), &step) != nil || !step.Done || step.Reward != 1 {
		t.Fatalf("final step: %d %s", code, body)
	}
	// The raw answer has the reference's four keys.
	var keys map[string]json.RawMessage
	json.Unmarshal([]byte(body), &keys)
	for _, k := range []string{"observation", "reward", "done", "info"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("step answer %s lacks %q", body, k)
		}
	}
	if n, _ := log.Refused(); n != 0 || log.Err() != nil {
		t.Errorf("refusals %d, error %v after good requests", n, log.Err())
	}
	want := []string{`get_user_details {"user_id": "x"}`, `stop {}`}
	if strings.Join(env.actions, "|") != strings.Join(want, "|") {
		t.Errorf("actions %q, want %q", env.actions, want)
	}
}

// Hostile requests are refused with a one-line reason before the episode
// sees them, recorded in the log, and never end the run.
func TestEnvServerRefusesHostileRequests(t *testing.T) {
	base, token, env, _, log := serveEnv(t)
	huge := `{"name": "respond", "kwargs": {"content": "` + strings.Repeat("a", maxEnvBody) + `"}}`
	cases := []struct {
		name, path, key, body string
		code                  int
		reason                string
	}{
		{"malformed JSON", "/env/step", token, `{"name": "x", "kwargs": `, 400, "malformed JSON"},
		{"not an object", "/env/step", token, `["respond"]`, 400, "malformed JSON"},
		{"empty step", "/env/step", token, ``, 400, "empty body"},
		{"no name", "/env/step", token, `{"kwargs": {}}`, 400, `want "name"`},
		{"name not a string", "/env/step", token, `{"name": 7, "kwargs": {}}`, 400, "wrong type"},
		{"kwargs a string", "/env/step", token, `{"name": "get_user_details", "kwargs": "{\"user_id\": 1}"}`, 400, `"kwargs" of get_user_details`},
		{"kwargs null", "/env/step", token, `{"name": "t", "kwargs": null}`, 400, "want a JSON object"},
		{"kwargs missing", "/env/step", token, `{"name": "t"}`, 400, "want a JSON object"},
		{"respond without content", "/env/step", token, `{"name": "respond", "kwargs": {"text": "hi"}}`, 400, `{"content": TEXT}`},
		{"respond content a number", "/env/step", token, `{"name": "respond", "kwargs": {"content": 5}}`, 400, `{"content": TEXT}`},
		{"enormous body", "/env/step", token, huge, 400, "body over"},
		{"reset not an object", "/env/reset", token, `"again"`, 400, "malformed JSON"},
		{"reset index a string", "/env/reset", token, `{"task_index": "3"}`, 400, "wrong type"},
		{"unknown env path", "/env/close", token, `{}`, 404, "unknown path"},
		{"wrong key", "/env/step", "nope", `{"name": "t", "kwargs": {}}`, 401, "wrong API key"},
		{"refused by the episode", "/env/step", token, `{"name": "refuse", "kwargs": {}}`, 409, "the episode is over"},
	}
	refusedBefore := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := post(t, base+c.path, c.key, c.body)
			if code != c.code || !strings.Contains(errorMessage(body), c.reason) {
				t.Errorf("%d %s, want %d with %q", code, clipTest(body), c.code, c.reason)
			}
			n, reasons := log.Refused()
			if n != refusedBefore+1 {
				t.Fatalf("%d refusals logged, want %d", n, refusedBefore+1)
			}
			refusedBefore = n
			if n <= maxReasons && (strings.Contains(reasons[n-1], "\n") || !strings.Contains(reasons[n-1], c.reason)) {
				t.Errorf("logged reason %q: want one line naming %q", reasons[n-1], c.reason)
			}
		})
	}
	if len(env.actions) != 1 || env.actions[0] != "refuse {}" {
		t.Errorf("the episode saw %q: only the well-formed step should reach it", env.actions)
	}
	if log.Err() != nil {
		t.Errorf("a client's refusal kept as the run's error: %v", log.Err())
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/env/reset", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /env/reset: %d, want 405", resp.StatusCode)
	}
}

// An error of the episode that is not a refusal (the user's model failed)
// is the run's: answered 500 and kept as the log's error.
func TestEnvServerKeepsTheRunsError(t *testing.T) {
	base, token, _, _, log := serveEnv(t)
	code, body := post(t, base+"/env/step", token, `{"name": "boom", "kwargs": {}}`)
	if code != 500 || !strings.Contains(body, "the user's model is down") {
		t.Fatalf("%d %s", code, body)
	}
	if log.Err() == nil || !strings.Contains(log.Err().Error(), "the user's model is down") {
		t.Errorf("log error %v", log.Err())
	}
}

func clipTest(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// FuzzEnvStep: whatever a step's body, the episode is called exactly when
// the body is one JSON object with a non-empty string name and an object
// kwargs (respond: with a string content), and the answer is 200 then,
// 400 otherwise.
func FuzzEnvStep(f *testing.F) {
	for _, s := range []string{`{"name":"t","kwargs":{}}`, `{"name":"respond","kwargs":{"content":"hi"}}`, `{"name":"respond","kwargs":{}}`,
		`{"name":"","kwargs":{}}`, `{"kwargs":{}}`, `[]`, `null`, `{"name":"t","kwargs":[1]}`, "\xff", `{"name":"t","kwargs":{"a":1e999}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		env := &fakeEnv{}
		h := EnvServer(env, &Log{})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/env/step", strings.NewReader(body)))
		var req struct {
			Name   *string         `json:"name"`
			Kwargs json.RawMessage `json:"kwargs"`
		}
		var kw map[string]json.RawMessage
		valid := json.Unmarshal([]byte(body), &req) == nil && req.Name != nil && *req.Name != "" &&
			json.Unmarshal(req.Kwargs, &kw) == nil && kw != nil
		if valid && *req.Name == "respond" {
			var content string
			valid = json.Unmarshal(kw["content"], &content) == nil
		}
		if valid && (*req.Name == "refuse" || *req.Name == "boom") {
			return // the fake's own answers
		}
		switch {
		case valid && (rec.Code != 200 || len(env.actions) != 1):
			t.Errorf("valid step %q: %d, %d actions", body, rec.Code, len(env.actions))
		case !valid && (rec.Code != 400 || len(env.actions) != 0):
			t.Errorf("invalid step %q: %d, %d actions", body, rec.Code, len(env.actions))
		}
	})
}
