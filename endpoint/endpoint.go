package endpoint

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/secrets"
)

// ItemHeader names the proxy item a request belongs to when its path does
// not (/item/<n>/v1/...).
const ItemHeader = "X-Bench-Item"

// NewToken returns a random token (32 hex digits): the key a program must
// send and the first segment of every path it may use.
func NewToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("endpoint token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Log is what an endpoint saw of its client beyond the calls (which the
// sampler stack records): requests refused and why, and the first error of
// the sampler stack itself (the budget, the model, the store), which is
// the run's, not the program's.
type Log struct {
	mu       sync.Mutex
	requests int
	refused  []string // the first few reasons
	nRefused int
	err      error
}

// maxReasons bounds the refusals a Log keeps the reasons of.
const maxReasons = 5

func (l *Log) refuse(reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nRefused++
	if len(l.refused) < maxReasons {
		l.refused = append(l.refused, reason)
	}
}

func (l *Log) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// Requests is how many requests reached the endpoint (refused ones too).
func (l *Log) Requests() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests
}

// Refused returns how many requests were refused and the first reasons.
func (l *Log) Refused() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nRefused, append([]string(nil), l.refused...)
}

// Err is the first error the sampler stack returned while its client was
// still waiting (a call cancelled because the client left is not one).
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// maxCallName bounds an explicit call name: it is stored with every call.
const maxCallName = 256

// ItemServer is the OpenAI-compatible server of one item's calls: its
// sampler stack behind Identity(purpose), with failures of the stack kept
// in log.
func ItemServer(s llm.Sampler, purpose string, log *Log) http.Handler {
	watch := func(next llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			resp, err := next.Sample(ctx, redactRequest(req))
			// A request the server refuses (400: a bad parameter, too
			// long a prompt) is the program's to handle, as any OpenAI
			// client's, and its item's failure at most; only a systemic
			// failure (the key, the budget, the endpoint, the model) is
			// the run's.
			if err != nil && ctx.Err() == nil && !llm.IsRequestError(err) {
				log.fail(err)
			}
			return resp, err
		})
	}
	srv := llm.NewServer(llm.Chain(s, watch, Identity(purpose)), llm.ServerOptions{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api := APIChat
		if strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/completions") && !strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/chat/completions") {
			api = APICompletions
		}
		name := strings.TrimSpace(r.Header.Get(CallHeader))
		if len(name) > maxCallName || strings.ContainsFunc(name, unicode.IsControl) || !utf8.ValidString(name) {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: at most %d bytes of printable UTF-8", CallHeader, maxCallName))
			return
		}
		if secrets.Process.Holds(name) {
			// A call's name is stored: one holding a key is refused, and
			// the refusal does not quote it.
			writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: the name holds a key bench knows; name the call otherwise", CallHeader))
			return
		}
		r = r.WithContext(withCall(r.Context(), name, api))
		srv.ServeHTTP(w, r)
	})
}

// redactRequest replaces every key bench knows in a program's request (a
// program can read bench's command line): no key reaches the model, the
// cache or the stored calls.
func redactRequest(req llm.Request) llm.Request {
	if secrets.Process.Len() == 0 {
		return req
	}
	b, err := json.Marshal(req)
	if err != nil {
		return req
	}
	red := secrets.Process.RedactJSON(b)
	if len(red) == len(b) && string(red) == string(b) {
		return req
	}
	var out llm.Request
	if json.Unmarshal(red, &out) != nil {
		return req
	}
	return out
}

// Handler checks every request's token (the path's first segment and the
// bearer key) and hands it, without the token, to the server of its item:
// item(0) for a program's own endpoint; for a proxy the item named by
// /item/<n>/ after the token or the X-Bench-Item header (default 0).
// Every refusal, its own or the item server's (status 400 and up), is
// kept in log with a one-line reason.
type Handler struct {
	Token string
	Item  func(index int) (http.Handler, error)
	// Items accepts /item/<n>/ paths and the X-Bench-Item header (bench
	// proxy); otherwise every request is item 0's.
	Items bool
	Log   *Log
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.Log.mu.Lock()
	h.Log.requests++
	h.Log.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w}
	h.serve(sw, r)
	if sw.status >= 400 {
		msg := errorMessage(sw.body.String())
		h.Log.refuse(fmt.Sprintf("%d %s %s: %s", sw.status, r.Method, redact(r.URL.Path, h.Token), oneLine(msg, 200)))
	}
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+h.Token+"/")
	if !ok || h.Token == "" {
		writeError(w, http.StatusNotFound, "unknown path (every path starts with the run's token: use OPENAI_BASE_URL)")
		return
	}
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(key)), []byte(h.Token)) != 1 {
		writeError(w, http.StatusUnauthorized, "wrong API key (use OPENAI_API_KEY)")
		return
	}
	index := 0
	if h.Items {
		if n, tail, ok := strings.Cut(strings.TrimPrefix(rest, "item/"), "/"); ok && strings.HasPrefix(rest, "item/") {
			i, err := strconv.Atoi(n)
			if err != nil || i < 0 {
				writeError(w, http.StatusNotFound, "item: want /item/<n>/ with n ≥ 0, got "+n)
				return
			}
			index, rest = i, tail
		} else if v := r.Header.Get(ItemHeader); v != "" {
			i, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || i < 0 {
				writeError(w, http.StatusBadRequest, ItemHeader+": want an item index ≥ 0, got "+v)
				return
			}
			index = i
		}
	}
	item, err := h.Item(index)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/" + rest
	r2.URL.RawPath = ""
	item.ServeHTTP(w, r2)
}

// Listener serves a handler on 127.0.0.1.
type Listener struct {
	srv *http.Server
	ln  net.Listener
	// URL is the OpenAI base URL to give a client:
	// http://127.0.0.1:PORT/<token>/v1.
	URL  string
	done chan struct{}
}

// Listen serves h on addr, which must be a loopback address
// ("127.0.0.1:0" picks a free port); token makes the base URL.
func Listen(addr, token string, h http.Handler) (*Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("endpoint address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("endpoint address %q: only a loopback address (127.0.0.1) is served, so that no other machine reaches the run's model", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("endpoint: %w", err)
	}
	l := &Listener{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}, done: make(chan struct{}),
		URL: "http://" + ln.Addr().String() + "/" + token + "/v1"}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

// Close stops serving at once: connections close and calls in flight are
// cancelled.
func (l *Listener) Close() error {
	err := l.srv.Close()
	<-l.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Shutdown stops accepting and waits for calls in flight (bench proxy on
// a signal), up to ctx.
func (l *Listener) Shutdown(ctx context.Context) error {
	err := l.srv.Shutdown(ctx)
	<-l.done
	return err
}

// statusWriter keeps a response's status and the start of an error body.
type statusWriter struct {
	http.ResponseWriter
	status int
	body   strings.Builder
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.status >= 400 && w.body.Len() < 512 {
		w.body.Write(b[:min(len(b), 512-w.body.Len())])
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets the item server stream.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := jsonError(msg)
	_, _ = w.Write(b)
}

// errorMessage is an error body's message, or the body.
func errorMessage(body string) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return strings.TrimSpace(body)
}

// redact hides the token in a path kept in the run's record.
func redact(path, token string) string {
	if token == "" {
		return path
	}
	return strings.ReplaceAll(path, token, "<token>")
}

// oneLine keeps at most n bytes of s on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
