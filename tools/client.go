package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/tasks"
)

// ConnectTimeout bounds starting a server and listing its tools.
const ConnectTimeout = 30 * time.Second

// Set is a run's connected servers and their tools, in configuration
// order (a server's tools in the order it lists them).
type Set struct {
	servers []*conn
	tools   []tool
	byName  map[string]int
	calls   atomic.Int64 // calls that reached a server
}

type conn struct {
	cfg     Server
	mu      sync.Mutex // guards session and proc, which a crash replaces, and closed
	session *mcp.ClientSession
	proc    *process // a stdio server's processes; nil over HTTP
	closed  bool
	stderr  *tailBuffer
}

type tool struct {
	spec tasks.ExternalTool
	srv  *conn
	name string // the server's own name for it
}

// replaces reports whether the tool stands for a task's tool, whose
// refusals it reports as that tool does.
func (t tool) replaces() bool { return t.spec.Replaces != "" }

// Connect starts or reaches each server, lists its tools and fills in its
// Reported and Digest. A server that cannot start or answer is an error
// naming it, in one line. task are the task's tools (their names, and
// descriptions and schemas where known): a server's tool equal to one of
// them in name, description and schema (as JSON) is that tool served
// (bench mcp serve) and replaces it (Replaces, the first server's only);
// a server's tool of another's name is offered as SERVER_TOOL.
func Connect(ctx context.Context, servers []Server, task []tasks.ExternalTool) (*Set, []Server, error) {
	if err := CheckAll(servers); err != nil {
		return nil, nil, err
	}
	Register(servers, os.Getenv)
	for _, cfg := range servers {
		if err := cfg.foreignKey(); err != nil {
			return nil, nil, err
		}
	}
	s := &Set{byName: map[string]int{}}
	out := make([]Server, len(servers))
	var listed [][]*mcp.Tool
	for i, cfg := range servers {
		c := &conn{cfg: cfg}
		s.servers = append(s.servers, c)
		cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
		ts, err := c.connect(cctx)
		cancel()
		if err != nil {
			s.Close()
			return nil, nil, fmt.Errorf("mcp server %s (%s): %s", cfg.Name, clip(cfg.Where(), 120), secrets.Process.Redact(oneLine(err, c.stderr)))
		}
		init := c.session.InitializeResult()
		if init != nil && init.ServerInfo != nil {
			cfg.Reported = strings.TrimSpace(init.ServerInfo.Name + " " + init.ServerInfo.Version)
		}
		cfg.Digest = digest(ts)
		c.cfg = cfg // Item.key reads the digest from here: a changed tool list is not replayed
		out[i] = cfg
		listed = append(listed, ts)
	}
	// Names: the server's own where it is free and a function name
	// (letters, digits, _ and -), else SERVER_TOOL; a task's tool served
	// keeps its name.
	count := map[string]int{}
	for _, t := range task {
		count[t.Name] += 2
	}
	replaced := map[string]bool{}
	for _, ts := range listed {
		for _, t := range ts {
			count[funcName(t.Name)]++
		}
	}
	for i, ts := range listed {
		c := s.servers[i]
		for _, t := range ts {
			schema, _ := json.Marshal(t.InputSchema)
			if len(schema) == 0 || string(schema) == "null" {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			spec := tasks.ExternalTool{Name: funcName(t.Name), Description: t.Description, Schema: schema, Server: c.cfg.Name}
			if j := sameTool(task, t, schema); j >= 0 && !replaced[t.Name] {
				replaced[t.Name] = true
				spec.Replaces = t.Name
			} else if count[spec.Name] > 1 || spec.Name != t.Name {
				spec.Name = funcName(c.cfg.Name + "_" + t.Name)
			}
			// What a server says of its tools reaches the model and the
			// records: a credential it quotes does not.
			spec.Description, spec.Schema = secrets.Process.Redact(spec.Description), secrets.Process.RedactJSON(spec.Schema)
			if _, dup := s.byName[spec.Name]; dup {
				s.Close()
				return nil, nil, fmt.Errorf("mcp server %s: tool %q is offered twice", c.cfg.Name, spec.Name)
			}
			s.byName[spec.Name] = len(s.tools)
			s.tools = append(s.tools, tool{srv: c, name: t.Name, spec: spec})
		}
	}
	return s, out, nil
}

// sameTool finds the task's tool that t is: the same name and
// description, and a schema equal as JSON (a client may reorder its
// keys); -1 if none.
func sameTool(task []tasks.ExternalTool, t *mcp.Tool, schema json.RawMessage) int {
	for i, b := range task {
		if b.Name == t.Name && b.Description == t.Description && len(b.Schema) > 0 && jsonEqual(b.Schema, schema) {
			return i
		}
	}
	return -1
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func (c *conn) connect(ctx context.Context) ([]*mcp.Tool, error) {
	var tr mcp.Transport
	var proc *process
	if c.cfg.URL != "" {
		hc := &http.Client{}
		if len(c.cfg.Headers) > 0 {
			u, err := url.Parse(c.cfg.URL)
			if err != nil {
				return nil, err
			}
			hc.Transport = headerTransport{host: u.Host, headers: c.cfg.Headers, next: http.DefaultTransport}
		}
		tr = &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		// Not bound to ctx: the server outlives the connect's deadline.
		c.stderr = &tailBuffer{max: 2048}
		var err error
		if proc, err = startProcess(c.cfg, environ(c.cfg, os.Getenv), c.stderr); err != nil {
			return nil, err
		}
		tr = &mcp.IOTransport{Reader: proc.stdout, Writer: proc.stdin}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "reasonbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		if proc != nil {
			proc.stop()
		}
		return nil, err
	}
	var ts []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			end(cs, proc)
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		ts = append(ts, t)
	}
	c.session, c.proc = cs, proc
	return ts, nil
}

// end closes a session and ends its server's processes (proc nil: a
// server over HTTP). A hostile server may never answer the goodbye: the
// session's close is not waited for, the processes' end is.
func end(cs *mcp.ClientSession, proc *process) error {
	if proc == nil {
		return cs.Close()
	}
	go cs.Close()
	proc.stop()
	return nil
}

// digest is the SHA-256 of the tool list as listed: names, descriptions,
// schemas.
func digest(ts []*mcp.Tool) string {
	type entry struct {
		Name, Description string
		Input, Output     any
	}
	list := make([]entry, len(ts))
	for i, t := range ts {
		list[i] = entry{t.Name, t.Description, t.InputSchema, t.OutputSchema}
	}
	b, _ := json.Marshal(list)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var notFunc = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// funcName is a name as function-calling APIs accept it.
func funcName(s string) string {
	s = notFunc.ReplaceAllString(s, "_")
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// Specs lists the tools offered.
func (s *Set) Specs() []tasks.ExternalTool {
	out := make([]tasks.ExternalTool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t.spec
	}
	return out
}

// Calls counts the calls that reached a server.
func (s *Set) Calls() int64 { return s.calls.Load() }

// closeWait bounds how long Close waits for a server to say goodbye.
const closeWait = 5 * time.Second

// Close ends every session (a stdio server's process group with it),
// waiting at most closeWait for servers that do not answer.
func (s *Set) Close() error {
	type live struct {
		cs   *mcp.ClientSession
		proc *process
	}
	var sessions []live
	for _, c := range s.servers {
		c.mu.Lock()
		if c.session != nil {
			sessions = append(sessions, live{c.session, c.proc})
			c.session, c.proc = nil, nil
		}
		c.closed = true
		c.mu.Unlock()
	}
	done := make(chan error, len(sessions))
	for _, l := range sessions {
		go func() { done <- end(l.cs, l.proc) }()
	}
	var errs []error
	timeout := time.After(closeWait)
	for range sessions {
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-timeout:
			return errors.Join(append(errs, errors.New("a server did not close in time"))...)
		}
	}
	return errors.Join(errs...)
}

// outcome is what one live call gave: the observation, and why it failed
// ("" when it did not).
type outcome struct {
	Result string `json:"result"`
	Error  string `json:"error,omitempty"`
	// Transient marks a failure of the server rather than the tool (a
	// crash, a hang): not cached, a rerun tries again.
	Transient bool `json:"-"`
}

// call runs a tool on its server under the server's timeout.
func (s *Set) call(ctx context.Context, t tool, args json.RawMessage, item int) outcome {
	timeout := t.srv.cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cs, err := t.srv.live(ctx)
	if err != nil {
		return outcome{Error: "the server could not be restarted: " + oneLine(err, t.srv.stderr), Transient: true}
	}
	s.calls.Add(1)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Meta: mcp.Meta{MetaItem: item}, Name: t.name, Arguments: args})
	var refusal *jsonrpc.Error
	switch {
	case err != nil && ctx.Err() != nil:
		return outcome{Error: ctx.Err().Error(), Transient: true}
	case err != nil && cctx.Err() != nil:
		// A hung tool may hold its server: the next call starts anew.
		t.srv.drop(cs)
		return outcome{Error: fmt.Sprintf("no answer within %s", timeout), Transient: true}
	case err != nil && answered(err, &refusal):
		// The server answered with a JSON-RPC error (-32602 "unknown
		// city"): the tool refusing its arguments, as an isError result.
		text := strings.TrimSpace(refusal.Message)
		if text == "" {
			text = fmt.Sprintf("(no message; JSON-RPC error %d)", refusal.Code)
		}
		res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	case err != nil:
		t.srv.drop(cs)
		return outcome{Error: "the server failed: " + oneLine(err, t.srv.stderr), Transient: true}
	}
	text := Observation(res.Content, res.StructuredContent)
	if res.IsError {
		if strings.TrimSpace(text) == "" {
			text = "(no message)"
		}
		o := outcome{Result: "Error: " + text, Error: clip(oneLine(errors.New(text), nil), 300)}
		if t.replaces() {
			// A task's tool served: its refusal reads as the built-in's.
			o.Result = text
		}
		return o
	}
	return outcome{Result: text}
}

// JSON-RPC error codes that the SDK makes up on the client's side for a
// connection that ended or a request the transport rejected: the server
// said nothing.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// answered reports whether err is the server's JSON-RPC error response to
// the call (which it sets in *wire), rather than a failure to get one.
func answered(err error, wire **jsonrpc.Error) bool {
	if !errors.As(err, wire) {
		return false
	}
	for _, code := range []int64{codeClientClosing, codeServerClosing, codeRejected} {
		if errors.Is(err, &jsonrpc.Error{Code: code}) {
			return false
		}
	}
	return true
}

// live returns the server's session, starting the server again if a
// failure dropped it (a crashed process, a broken connection).
func (c *conn) live(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, nil
	}
	if c.closed {
		return nil, errors.New("the run's servers are closed")
	}
	cctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	if _, err := c.connect(cctx); err != nil {
		return nil, err
	}
	return c.session, nil
}

// drop ends a session that failed and its server's processes, so that
// the next call starts anew.
func (c *conn) drop(cs *mcp.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == cs {
		go end(cs, c.proc)
		c.session, c.proc = nil, nil
	}
}

// MaxObservation bounds what a tool call shows the model and stores.
const MaxObservation = 8000

// Observation is what a result shows the model: its text parts, each
// other part described in one line, the whole capped at MaxObservation
// bytes (head and tail kept).
func Observation(content []mcp.Content, structured any) string {
	var parts []string
	for _, c := range content {
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", mime(v.MIMEType), len(v.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", mime(v.MIMEType), len(v.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", clip(v.URI, 200), clip(v.Name, 100)))
		case *mcp.EmbeddedResource:
			if v.Resource == nil {
				parts = append(parts, "[resource]")
			} else if v.Resource.Text != "" {
				parts = append(parts, fmt.Sprintf("[resource %s]\n%s", clip(v.Resource.URI, 200), v.Resource.Text))
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s %s, %d bytes]", clip(v.Resource.URI, 200), mime(v.Resource.MIMEType), len(v.Resource.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if len(parts) == 0 && structured != nil {
		b, _ := json.Marshal(structured)
		parts = append(parts, string(b))
	}
	return headTail(strings.Join(parts, "\n"), MaxObservation)
}

func mime(m string) string {
	if m == "" {
		return "of unknown type"
	}
	return clip(m, 60)
}

// headTail keeps the start and the end of a long text, valid UTF-8.
func headTail(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	h := n / 2
	return strings.ToValidUTF8(s[:h], "") + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-n) + strings.ToValidUTF8(s[len(s)-(n-h):], "")
}

func clip(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ToValidUTF8(s, "")
}

// oneLine is an error (and a server's last stderr line) on one line.
func oneLine(err error, stderr *tailBuffer) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if stderr != nil {
		if last := stderr.lastLine(); last != "" {
			msg += " (stderr: " + clip(last, 200) + ")"
		}
	}
	if errors.Is(err, io.EOF) || strings.Contains(msg, "EOF") {
		msg += "; did the server exit?"
	}
	return clip(msg, 500)
}

// tailBuffer keeps the end of a server's standard error.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
