package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
)

// TestContinuationOnCompletions: a step continuation (user turn, partial
// assistant turn, continue_final_message) goes to /completions as one
// prompt, the user turn, a newline and the partial solution, without the
// chat template's fields; other extra fields stay. Without the flag a
// two-turn request is still refused.
func TestContinuationOnCompletions(t *testing.T) {
	srv := NewServer(&fakeSampler{}, ServerOptions{})
	rec := &bodyRecorder{next: srv}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "base-model", API: APICompletions})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Messages: []Message{userMsg("Problem: 1+1\n\nSolution:\n"), {Role: "assistant", Content: "1 + 1 = 2\n\n"}},
		Stop: []string{"\n\n"}, Seed: 7,
		Extra: map[string]json.RawMessage{"continue_final_message": json.RawMessage("true"), "add_generation_prompt": json.RawMessage("false"),
			"top_p": json.RawMessage("0.9")}}
	if _, err := c.Sample(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	body := rec.last(t)
	if got := string(body["prompt"]); got != `"Problem: 1+1\n\nSolution:\n1 + 1 = 2\n\n"` {
		t.Errorf("prompt %s", got)
	}
	if body["continue_final_message"] != nil || body["add_generation_prompt"] != nil || string(body["top_p"]) != "0.9" {
		t.Errorf("body %v: want top_p and no chat template fields", body)
	}
	if len(req.Extra) != 3 {
		t.Errorf("the caller's Extra changed: %v", req.Extra)
	}
	req.Extra = nil
	if _, err := c.Sample(context.Background(), req); !errors.Is(err, ErrNeedsChat) {
		t.Errorf("two turns without continue_final_message: err %v, want ErrNeedsChat", err)
	}
}
