package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hugeBody serves a chat completion whose content is offered MiB by MiB
// up to offer bytes (with status), counting the bytes the client took.
func hugeBody(t *testing.T, status int, offer int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var written atomic.Int64
	chunk := []byte(strings.Repeat("a", 1<<20))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)
		for written.Load() < offer {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return // the client stopped reading
			}
		}
		io.WriteString(w, `"}}]}`)
	}))
	t.Cleanup(ts.Close)
	return ts, &written
}

// TestResponseCapped: a response body larger than MaxResponseBytes (an
// endpoint returning 20 choices of 9 MB drove bench to 9.9 GB) fails its
// call with ResponseTooLargeError naming the server, not retried: reading
// stops at the cap, memory stays bounded and the server is left with most
// of its body unsent, an error response's body too. A declared length
// over the cap fails before any reading, under the default cap as well.
func TestResponseCapped(t *testing.T) {
	const limit = 1 << 20
	const offer = 256 << 20
	for _, status := range []int{200, 500} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			ts, written := hugeBody(t, status, offer)
			c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", MaxResponseBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
			runtime.ReadMemStats(&after)
			var tooLarge *ResponseTooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Limit != limit || !strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "1 MiB") {
				t.Fatalf("err %v, want a ResponseTooLargeError at 1 MiB naming %s", err, ts.URL)
			}
			if Retryable(err) {
				t.Errorf("retryable: %v", err)
			}
			// The handler sees its writes fail once the client has closed
			// the connection; what it wrote is the cap and the buffers.
			time.Sleep(100 * time.Millisecond)
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v; the server wrote %d MiB of %d, the client allocated %d MiB", err, written.Load()>>20, offer>>20, allocated>>20)
			if written.Load() > 64<<20 || allocated > 64<<20 {
				t.Errorf("the server wrote %d MiB and the client allocated %d MiB for a body capped at 1 MiB", written.Load()>>20, allocated>>20)
			}
		})
	}
	t.Run("declared length", func(t *testing.T) {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(DefaultMaxResponseBytes+1))
			w.WriteHeader(200)
			io.WriteString(w, `{"id":"x",`)
			w.(http.Flusher).Flush()
			<-r.Context().Done() // the rest never comes
		}))
		defer ts.Close()
		c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m", Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Sample(context.Background(), Request{Messages: []Message{userMsg("q")}})
		var tooLarge *ResponseTooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != DefaultMaxResponseBytes || DefaultMaxResponseBytes != 64<<20 {
			t.Fatalf("err %v, want a ResponseTooLargeError at the default 64 MiB", err)
		}
		t.Log(err)
	})
}

// TestCappedBody: a body of exactly the limit is read whole; a byte more
// is the error.
func TestCappedBody(t *testing.T) {
	for _, c := range []struct {
		size    int
		tooLong bool
	}{{0, false}, {9, false}, {10, false}, {11, true}, {1000, true}} {
		b := &cappedBody{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", c.size))), left: 10, limit: 10}
		got, err := io.ReadAll(b)
		var tooLarge *ResponseTooLargeError
		if errors.As(err, &tooLarge) != c.tooLong || (!c.tooLong && (err != nil || len(got) != c.size)) || len(got) > 10 {
			t.Errorf("%d bytes: read %d, err %v", c.size, len(got), err)
		}
	}
}
