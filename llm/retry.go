package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
)

// Defaults for the zero fields of a RetryPolicy.
const (
	DefaultRetryAttempts = 4
	DefaultRetryBase     = 500 * time.Millisecond
	DefaultRetryMax      = 30 * time.Second
)

// RetryPolicy says how often and how patiently Retry tries again.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, the first included; 0 → 4; 1 → no retry
	Base        time.Duration // backoff before the 2nd attempt (before jitter); 0 → 500ms
	Max         time.Duration // cap on any single wait, Retry-After included; 0 → 30s
	// Rand is the jitter source, returning values in [0,1); nil → math/rand/v2.
	Rand func() float64
	// Sleep waits d or until ctx is done; nil → a real timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryAttempts
	}
	if p.Base <= 0 {
		p.Base = DefaultRetryBase
	}
	if p.Max <= 0 {
		p.Max = DefaultRetryMax
	}
	if p.Max < p.Base {
		p.Max = p.Base
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	return p
}

// Backoff returns the wait after the given failed attempt (1-based) when the
// server gave no Retry-After: d = min(Max, Base·2^(attempt-1)), with equal
// jitter, i.e. uniform in [d/2, d).
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	p = p.withDefaults()
	d := p.Max
	if shift := attempt - 1; shift < 62 {
		if b := p.Base << shift; b > 0 && b < p.Max && b>>shift == p.Base {
			d = b
		}
	}
	half := d / 2
	return half + time.Duration(p.Rand()*float64(d-half))
}

// Retry returns a middleware that retries Retryable errors with exponential
// backoff (see RetryPolicy.Backoff). When the failed response carried
// Retry-After-Ms or Retry-After, that wait (capped at Max) is used instead.
// It stops at once when ctx is done. A final error is wrapped as
// "after N attempt(s): ..." and keeps the last error inspectable.
//
// The Usage of a successful response is the successful attempt's own: failed
// attempts are counted nowhere.
func Retry(p RetryPolicy) Middleware {
	p = p.withDefaults()
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			for attempt := 1; ; attempt++ {
				resp, err := next.Sample(ctx, req)
				if err == nil {
					return resp, nil
				}
				if cerr := ctx.Err(); cerr != nil {
					if errors.Is(err, cerr) {
						return Response{}, fmt.Errorf("after %d attempt(s): %w", attempt, err)
					}
					return Response{}, fmt.Errorf("after %d attempt(s): %w (last error: %w)", attempt, cerr, err)
				}
				if attempt >= p.MaxAttempts || !Retryable(err) {
					return Response{}, fmt.Errorf("after %d attempt(s): %w", attempt, err)
				}
				d, ok := retryAfter(err)
				if !ok {
					d = p.Backoff(attempt)
				}
				d = min(d, p.Max)
				if serr := p.Sleep(ctx, d); serr != nil {
					return Response{}, fmt.Errorf("after %d attempt(s): %w (last error: %w)", attempt, serr, err)
				}
			}
		})
	}
}

// Retryable reports whether err is worth another attempt: HTTP 408, 409,
// 429 and 5xx (an "x-should-retry: true|false" response header overrides),
// a per-attempt timeout (context.DeadlineExceeded — callers must check
// themselves that their own ctx is not done, as Retry does), connection
// refused/reset/aborted, a connection closed mid-response, and network
// timeouts. Not: a refused parameter (ParamError, whatever its status),
// other 4xx (400, 401, 403, 404, 422...), context.Canceled,
// DNS "no such host", malformed or empty responses.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	var marked retryableError
	if errors.As(err, &marked) {
		return true
	}
	if _, ok := RejectedParam(err); ok { // the same request is refused again
		return false
	}
	var ae *openai.Error
	if errors.As(err, &ae) {
		if ae.Response != nil {
			switch strings.ToLower(ae.Response.Header.Get("x-should-retry")) {
			case "true":
				return true
			case "false":
				return false
			}
		}
		s := ae.StatusCode
		return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return de.IsTimeout || de.IsTemporary
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	// A bare EOF from the transport means the server closed the connection
	// before answering; an EOF from decoding an empty body is not transient.
	var ue *url.Error
	if errors.As(err, &ue) && errors.Is(ue.Err, io.EOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return false
}

// retryableError is an error a client other than the OpenAI one marked
// worth another attempt (a reward model server's 429 or 5xx).
type retryableError struct{ error }

func (e retryableError) Unwrap() error { return e.error }

// MarkRetryable marks err as worth another attempt to Retry, as an HTTP
// 429 or 5xx from a server that is not spoken to through openai-go.
func MarkRetryable(err error) error { return retryableError{err} }

// retryAfter reads Retry-After-Ms or Retry-After (seconds or an HTTP date)
// from the response behind an *openai.Error.
func retryAfter(err error) (time.Duration, bool) {
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.Response == nil {
		return 0, false
	}
	h := ae.Response.Header
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, perr := strconv.ParseFloat(v, 64); perr == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, perr := strconv.ParseFloat(v, 64); perr == nil && s >= 0 {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, perr := http.ParseTime(v); perr == nil {
			return max(time.Until(t), 0), true
		}
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
