package bench

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// startProxy runs a proxy session on st until the returned stop is called.
func startProxy(t *testing.T, e *Engine, name string) (url, key string, stop func() (Summary, ProxyStats)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]string, 1)
	type result struct {
		sum   Summary
		stats ProxyStats
		err   error
	}
	done := make(chan result, 1)
	go func() {
		sum, stats, err := e.Proxy(ctx, DefaultConfig(), ProxyOptions{Name: name, Ready: func(u, k string) { ready <- [2]string{u, k} }})
		done <- result{sum, stats, err}
	}()
	var got [2]string
	select {
	case got = <-ready:
	case r := <-done:
		t.Fatalf("proxy ended: %v", r.err)
	}
	return got[0], got[1], func() (Summary, ProxyStats) {
		cancel()
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.sum, r.stats
	}
}

func proxyAsk(t *testing.T, url, key, prompt string, header ...string) string {
	t.Helper()
	body := `{"model":"any","messages":[{"role":"user","content":` + jsonString(prompt) + `}],"temperature":0.7}`
	req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	return out.Choices[0].Message.Content
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// bench proxy stores each call as it arrives, under its item (path or
// header), and at the end each item with its last answer; a second
// session of the same name sending the same requests replays them from
// the cache, answer for answer, with no model call.
func TestProxyRecordsAndReplays(t *testing.T) {
	t.Parallel()
	st := tempStore(t)
	sim, calls := simCounter(t, DefaultConfig())
	e := &Engine{Store: st, Backend: sim}
	const p = "Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: 4 4 6 8\nAnswer:"
	session := func() ([]string, Summary) {
		url, key, stop := startProxy(t, e, "agent")
		base := strings.TrimSuffix(url, "/v1")
		var got []string
		got = append(got, proxyAsk(t, url, key, p))
		got = append(got, proxyAsk(t, base+"/item/2/v1", key, p))
		got = append(got, proxyAsk(t, url, key, p, "X-Bench-Item", "2"))
		got = append(got, proxyAsk(t, url, key, p, "X-Bench-Item", "2", "X-Bench-Call", "final"))
		runs, err := st.Runs(context.Background(), store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		last := runs[len(runs)-1]
		stored, _ := st.Calls(context.Background(), last.ID, 2)
		if len(stored) != 3 || last.Status != store.StatusRunning {
			t.Errorf("while serving: %d calls of item 2 stored, status %s", len(stored), last.Status)
		}
		sum, stats := stop()
		if sum.N != 2 || sum.Calls != 4 || stats.Requests != 4 || stats.Refused != 0 || sum.Status != store.StatusDone {
			t.Errorf("%+v %+v", sum, stats)
		}
		items, _ := st.Items(context.Background(), sum.RunID)
		if len(items) != 2 || items[0].Output != got[0] || items[1].Output != got[3] {
			t.Errorf("items %+v", items)
		}
		return got, sum
	}
	first, _ := session()
	if calls.Load() != 4 {
		t.Errorf("%d model calls", calls.Load())
	}
	if first[1] == first[2] && first[2] == first[3] {
		t.Errorf("item 2's identical requests drew the same answer three times: %q", first[1])
	}
	calls.Store(0)
	again, _ := session()
	if calls.Load() != 0 {
		t.Errorf("the second session made %d model calls", calls.Load())
	}
	for i := range first {
		if first[i] != again[i] {
			t.Errorf("answer %d: %q, then %q", i, first[i], again[i])
		}
	}
}

// A proxy session killed before it finished is refused by resume with a
// reason, not as an unknown task.
func TestProxyRunIsNotResumed(t *testing.T) {
	t.Parallel()
	st := tempStore(t)
	id, err := st.CreateRun(context.Background(), store.Run{Task: ProxyTask, Strategy: ProxyStrategy, Params: []byte(`{"name":"a"}`), Model: "sim",
		Spec: []byte(`{"config":{"task":"proxy","strategy":"proxy","model":"sim"}}`), SimParams: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&Engine{Store: st}).Resume(context.Background(), id, "")
	var ce ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "bench proxy session") {
		t.Errorf("resume: %v", err)
	}
}
