package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// sleepRecorder is an injectable RetryPolicy.Sleep that records and skips waits.
type sleepRecorder struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleepRecorder) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

// flakyServer answers the i-th request with failures[i] (a status code, or
// a func) and then falls through to a NewServer over a fakeSampler.
func flakyServer(t *testing.T, failures ...func(w http.ResponseWriter, r *http.Request)) (*OpenAI, *atomic.Int64, string) {
	t.Helper()
	var n atomic.Int64
	ok := NewServer(&fakeSampler{}, ServerOptions{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1) - 1
		if int(i) < len(failures) && failures[i] != nil {
			failures[i](w, r)
			return
		}
		ok.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return c, &n, ts.URL
}

func status(code int, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		writeError(w, code, "test_error", fmt.Sprintf("status %d", code))
	}
}

func TestRetry429Then503ThenOK(t *testing.T) {
	c, n, _ := flakyServer(t, status(429), status(503))
	rec := &sleepRecorder{}
	p := RetryPolicy{MaxAttempts: 5, Base: 100 * time.Millisecond, Max: 150 * time.Millisecond, Sleep: rec.Sleep}
	resp, err := Chain(c, Retry(p)).Sample(context.Background(), Request{Messages: []Message{userMsg("q")}, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 {
		t.Fatalf("%d HTTP requests, want 3", n.Load())
	}
	if resp.Choices[0].Content != "choice seed=9 echo=q" {
		t.Errorf("content %q", resp.Choices[0].Content)
	}
	if resp.Usage.Requests != 1 {
		t.Errorf("Usage.Requests = %d; only the successful attempt counts", resp.Usage.Requests)
	}
	if len(rec.delays) != 2 {
		t.Fatalf("delays %v", rec.delays)
	}
	// Equal jitter: wait k is in [d/2, d) with d = min(Max, Base·2^(k-1)).
	bounds := [][2]time.Duration{{50 * time.Millisecond, 100 * time.Millisecond}, {75 * time.Millisecond, 150 * time.Millisecond}}
	for i, d := range rec.delays {
		if d < bounds[i][0] || d >= bounds[i][1] {
			t.Errorf("delay %d = %v, want in [%v, %v)", i, d, bounds[i][0], bounds[i][1])
		}
	}
}

func TestRetryBackoffSchedule(t *testing.T) {
	for _, r := range []float64{0, 0.5, 0.999999} {
		p := RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second, Rand: func() float64 { return r }}
		caps := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000}
		for i, c := range caps {
			c *= time.Millisecond
			want := c/2 + time.Duration(r*float64(c-c/2))
			if got := p.Backoff(i + 1); got != want {
				t.Errorf("rand %v attempt %d: %v, want %v", r, i+1, got, want)
			}
		}
	}
	// Huge attempt numbers must not overflow.
	p := RetryPolicy{Base: time.Second, Max: time.Minute, Rand: func() float64 { return 0 }}
	for _, a := range []int{40, 63, 64, 1000} {
		if got := p.Backoff(a); got != 30*time.Second {
			t.Errorf("attempt %d: %v", a, got)
		}
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	c, n, _ := flakyServer(t,
		status(429, "Retry-After", "2"),       // 2s capped at Max=1s
		status(429, "Retry-After-Ms", "30"),   // 30ms
		status(503, "Retry-After", "0.25"),    // 250ms
		status(503, "Retry-After", "garbage"), // ignored → backoff (rand 0 → d/2)
	)
	rec := &sleepRecorder{}
	p := RetryPolicy{MaxAttempts: 5, Base: 100 * time.Millisecond, Max: time.Second, Sleep: rec.Sleep, Rand: func() float64 { return 0 }}
	if _, err := Chain(c, Retry(p)).Sample(context.Background(), Request{Messages: []Message{userMsg("q")}}); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Second, 30 * time.Millisecond, 250 * time.Millisecond, 400 * time.Millisecond}
	if fmt.Sprint(rec.delays) != fmt.Sprint(want) || n.Load() != 5 {
		t.Errorf("delays %v (want %v), %d requests", rec.delays, want, n.Load())
	}
}

func TestRetryGivesUp(t *testing.T) {
	c, n, _ := flakyServer(t, status(500), status(502), status(503), status(504), status(500))
	rec := &sleepRecorder{}
	_, err := Chain(c, Retry(RetryPolicy{MaxAttempts: 3, Sleep: rec.Sleep})).Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
	if err == nil || n.Load() != 3 || len(rec.delays) != 2 {
		t.Fatalf("err %v, %d requests, delays %v", err, n.Load(), rec.delays)
	}
	var ae *openai.Error
	if !strings.Contains(err.Error(), "after 3 attempt(s)") || !errors.As(err, &ae) || ae.StatusCode != 503 {
		t.Errorf("err = %v", err)
	}
}

func TestRetryNotOn400(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 422} {
		c, n, _ := flakyServer(t, status(code), status(code))
		rec := &sleepRecorder{}
		_, err := Chain(c, Retry(RetryPolicy{Sleep: rec.Sleep})).Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != code {
			t.Errorf("%d: err = %v", code, err)
		}
		if n.Load() != 1 || len(rec.delays) != 0 {
			t.Errorf("%d: %d requests, delays %v", code, n.Load(), rec.delays)
		}
	}
}

func TestRetryStopsOnParentCancel(t *testing.T) {
	t.Run("already cancelled", func(t *testing.T) {
		c, n, _ := flakyServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := &sleepRecorder{}
		_, err := Chain(c, Retry(RetryPolicy{Sleep: rec.Sleep})).Sample(ctx, Request{Messages: []Message{userMsg("q")}})
		if !errors.Is(err, context.Canceled) || n.Load() != 0 || len(rec.delays) != 0 {
			t.Errorf("err %v, %d requests, delays %v", err, n.Load(), rec.delays)
		}
	})
	t.Run("during request", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		hang := func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // lets net/http notice the hang-up
			cancel()
			<-r.Context().Done()
		}
		c, n, _ := flakyServer(t, hang, hang, hang)
		rec := &sleepRecorder{}
		start := time.Now()
		_, err := Chain(c, Retry(RetryPolicy{Sleep: rec.Sleep})).Sample(ctx, Request{Messages: []Message{userMsg("q")}})
		if !errors.Is(err, context.Canceled) || n.Load() != 1 || len(rec.delays) != 0 {
			t.Errorf("err %v, %d requests, delays %v", err, n.Load(), rec.delays)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("took %v", time.Since(start))
		}
	})
	t.Run("during backoff", func(t *testing.T) {
		c, n, _ := flakyServer(t, status(503), status(503))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := Chain(c, Retry(RetryPolicy{Base: time.Minute, Max: time.Minute})).Sample(ctx, Request{Messages: []Message{userMsg("q")}})
		if !errors.Is(err, context.Canceled) || n.Load() != 1 {
			t.Errorf("err %v, %d requests", err, n.Load())
		}
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 503 {
			t.Errorf("last error not kept: %v", err)
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("took %v", time.Since(start))
		}
	})
}

func TestRetryPerAttemptTimeout(t *testing.T) {
	var n atomic.Int64
	ok := NewServer(&fakeSampler{}, ServerOptions{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		ok.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// The bare backend reports a per-attempt timeout as retryable.
	_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
	if !errors.Is(err, context.DeadlineExceeded) || !Retryable(err) || !strings.Contains(err.Error(), "timed out after 100ms") {
		t.Fatalf("err = %v", err)
	}
	n.Store(0)
	rec := &sleepRecorder{}
	resp, err := Chain(c, Retry(RetryPolicy{Sleep: rec.Sleep})).Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 || len(rec.delays) != 1 || len(resp.Choices) != 1 {
		t.Errorf("%d requests, delays %v, resp %+v", n.Load(), rec.delays, resp)
	}
}

func TestRetryParentDeadlineNotRetried(t *testing.T) {
	calls := 0
	s := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		calls++
		<-ctx.Done()
		return Response{}, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rec := &sleepRecorder{}
	_, err := Chain(s, Retry(RetryPolicy{Sleep: rec.Sleep})).Sample(ctx, Request{})
	if !errors.Is(err, context.DeadlineExceeded) || calls != 1 || len(rec.delays) != 0 {
		t.Errorf("err %v, calls %d, delays %v", err, calls, rec.delays)
	}
}

func TestRetryMiddlewareCounts(t *testing.T) {
	calls := 0
	transient := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	s := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		calls++
		if calls < 4 {
			return Response{}, transient
		}
		return Response{Choices: []Choice{{Content: "ok"}}, Usage: Usage{Requests: 1}}, nil
	})
	rec := &sleepRecorder{}
	resp, err := Chain(s, Retry(RetryPolicy{MaxAttempts: 4, Sleep: rec.Sleep})).Sample(context.Background(), Request{})
	if err != nil || calls != 4 || len(rec.delays) != 3 || resp.Usage.Requests != 1 {
		t.Fatalf("err %v calls %d delays %v usage %+v", err, calls, rec.delays, resp.Usage)
	}
	calls = -10
	_, err = Chain(s, Retry(RetryPolicy{MaxAttempts: 2, Sleep: rec.Sleep})).Sample(context.Background(), Request{})
	if err == nil || !strings.HasPrefix(err.Error(), "after 2 attempt(s): ") || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v", err)
	}
}

func TestRetryable(t *testing.T) {
	apiErr := func(code int, hdr ...string) error {
		res := &http.Response{StatusCode: code, Header: http.Header{}}
		for i := 0; i+1 < len(hdr); i += 2 {
			res.Header.Set(hdr[i], hdr[i+1])
		}
		return fmt.Errorf("wrapped: %w", &openai.Error{StatusCode: code, Response: res})
	}
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{apiErr(429), true},
		{apiErr(408), true},
		{apiErr(409), true},
		{apiErr(500), true},
		{apiErr(502), true},
		{apiErr(503), true},
		{apiErr(400), false},
		{apiErr(401), false},
		{apiErr(404), false},
		{apiErr(422), false},
		{apiErr(503, "x-should-retry", "false"), false},
		{apiErr(400, "x-should-retry", "true"), true},
		{context.Canceled, false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, false},
		{errors.New("error parsing response json: invalid character"), false},
	}
	for _, tc := range cases {
		if got := Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
