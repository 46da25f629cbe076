package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// noUsageServer answers chat completions as some third-party servers do:
// n choices and no usage object; with failing set, every request gets a
// 400 whose body is not OpenAI's error shape.
func noUsageServer(t *testing.T, failing bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if failing {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error": "SyntaxError", "message": "Unexpected token } in JSON at position 7"}`)
			return
		}
		var req struct {
			N int `json:"n"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		var choices []string
		for i := range max(1, req.N) {
			choices = append(choices, fmt.Sprintf(`{"index": %d, "message": {"role": "assistant", "content": "4 + 4 = 8\nAnswer: (4 + 4) * 3 = 24"}, "finish_reason": "stop"}`, i))
		}
		fmt.Fprintf(w, `{"id": "x", "object": "chat.completion", "model": "gpt-4", "choices": [%s]}`, strings.Join(choices, ","))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestNoUsageServerCountedAndCapped: a server that reports no usage gets
// its tokens counted locally (marked estimated), so --max-cost stops the
// run instead of letting every call through as free.
func TestNoUsageServerCountedAndCapped(t *testing.T) {
	t.Parallel()
	srv, calls := noUsageServer(t, false)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cotsc", "900:950"
	cfg.Params = map[string]any{"k": 5}
	cfg.Model, cfg.BaseURL, cfg.Concurrency = "gpt-4", srv.URL+"/v1", 1
	cfg.MaxCost = 0.001
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if !errors.Is(err, llm.ErrMaxCost) {
		t.Fatalf("run with --max-cost 0.001 on gpt-4 prices: err %v, want the ceiling to stop it", err)
	}
	if sum.N >= 50 || calls.Load() >= 50 {
		t.Fatalf("%d items, %d requests: the ceiling let the run through", sum.N, calls.Load())
	}
	if sum.PromptTokens == 0 || sum.CompletionTokens == 0 {
		t.Fatalf("tokens %d/%d: a server without usage counted as free", sum.PromptTokens, sum.CompletionTokens)
	}
	recorded, err := st.Calls(context.Background(), sum.RunID, -1)
	if err != nil || len(recorded) == 0 {
		t.Fatalf("calls: %v", err)
	}
	var resp llm.Response
	if err := json.Unmarshal(recorded[0].Response, &resp); err != nil || !resp.Usage.Estimated {
		t.Fatalf("recorded usage %+v not marked estimated (%v)", resp.Usage, err)
	}
}

// TestServerErrorBodyShown: an error body in another shape than OpenAI's
// is shown as the server wrote it, with the status.
func TestServerErrorBodyShown(t *testing.T) {
	t.Parallel()
	srv, _ := noUsageServer(t, true)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "io", "900:901"
	cfg.Model, cfg.BaseURL = "some-model", srv.URL+"/v1"
	_, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "Unexpected token } in JSON at position 7") || !strings.Contains(err.Error(), "400") ||
		strings.Contains(err.Error(), "cannot unmarshal") {
		t.Fatalf("err = %v; want the status and the server's message", err)
	}
}
