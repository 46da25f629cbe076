package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/openai/openai-go/v3"
)

// A backend's refusal of one request (400, 413, 422) is passed on with its
// status, as a proxy of the server would; anything else is a 500.
func TestServerPassesRequestErrorsOn(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("chat: %w", &openai.Error{StatusCode: 400}), 400},
		{fmt.Errorf("chat: %w", &openai.Error{StatusCode: 422}), 422},
		{&ParamError{Param: "temperature", Err: &openai.Error{StatusCode: 400}}, 400},
		{fmt.Errorf("chat: %w", &openai.Error{StatusCode: 401}), 500},
		{fmt.Errorf("chat: %w", &openai.Error{StatusCode: 404}), 500},
		{errors.New("connection refused"), 500},
	} {
		s := SamplerFunc(func(context.Context, Request) (Response, error) { return Response{}, c.err })
		ts := httptest.NewServer(NewServer(s, ServerOptions{}))
		code, _, body := postJSON(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
		ts.Close()
		if code != c.want || body["error"] == nil {
			t.Errorf("%v: status %d, want %d (%v)", c.err, code, c.want, body)
		}
		if got := IsRequestError(c.err); got != (c.want != 500) {
			t.Errorf("IsRequestError(%v) = %v", c.err, got)
		}
	}
}
