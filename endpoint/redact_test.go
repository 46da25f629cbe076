package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
)

// A program's request reaches the item's sampler with every key bench
// knows redacted; a refusal of one request (400) is the program's, not
// the log's (the run goes on), while any other failure is the run's.
func TestItemServerRedactsAndSortsFailures(t *testing.T) {
	const canary = "sk-canary-endpoint-77ab"
	secrets.Process.Add(canary)
	var mu sync.Mutex
	var seen []string
	fail := error(nil)
	s := llm.SamplerFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, req.Messages[0].Content)
		if fail != nil {
			return llm.Response{}, fail
		}
		return llm.Response{Choices: []llm.Choice{{Content: "ok"}}}, nil
	})
	for _, c := range []struct {
		fail    error
		code    int
		runFail bool
	}{
		{nil, 200, false},
		{fmt.Errorf("x: %w", &openai.Error{StatusCode: 400}), 400, false},
		{fmt.Errorf("x: %w", &openai.Error{StatusCode: 401}), 500, true},
		{errors.New("unreachable"), 500, true},
	} {
		fail = c.fail
		log := &Log{}
		ts := httptest.NewServer(ItemServer(s, "program", log))
		res, err := ts.Client().Post(ts.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"key `+canary+`"}]}`))
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.code || (log.Err() != nil) != c.runFail {
			t.Errorf("%v: status %d, run's error %v", c.fail, res.StatusCode, log.Err())
		}
	}
	for _, got := range seen {
		if strings.Contains(got, canary) || !strings.Contains(got, secrets.Marker) {
			t.Errorf("the sampler was sent %q", got)
		}
	}
}

// A call name (X-Bench-Call) holding a key is refused without quoting it:
// names are stored as the calls' identities.
func TestCallNameHoldingAKeyRefused(t *testing.T) {
	const canary = "sk-canary-callname-31c9"
	secrets.Process.Add(canary)
	calls := 0
	s := llm.SamplerFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		calls++
		return llm.Response{Choices: []llm.Choice{{Content: "ok"}}}, nil
	})
	ts := httptest.NewServer(ItemServer(s, "program", &Log{}))
	defer ts.Close()
	for _, name := range []string{"step-" + canary, canary} {
		req := httptest.NewRequest("POST", ts.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"x"}]}`))
		req.RequestURI = ""
		req.Header.Set(CallHeader, name)
		req.Header.Set("Content-Type", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body strings.Builder
		_, _ = io.Copy(&body, res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || strings.Contains(body.String(), canary) {
			t.Errorf("call named %q: status %d, %s", name, res.StatusCode, body.String())
		}
	}
	if calls != 0 {
		t.Errorf("%d calls with a key for a name reached the model", calls)
	}
}
