// An item's events besides its model calls (which itemRecorder keeps with
// each call): its tool calls, seen by a wrapper of its tool host, and its
// verifier's scores, seen by a wrapper of its verifier. User turns are the
// strategy's to record (strategies.Env.Events); the verdict is solveOne's.

package bench

import (
	"context"
	"encoding/json"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/verify"
)

// eventTools is an item's tool host (tasks.ToolHost, the run's MCP tools)
// recording each call to a server as a tool event: server, tool,
// arguments, result or error, latency and whether it was replayed.
type eventTools struct {
	host tasks.ToolHost
	log  *events.Log
}

func (t eventTools) Specs() []tasks.ExternalTool { return t.host.Specs() }

func (t eventTools) Call(ctx context.Context, name string, args json.RawMessage) (tasks.ToolResult, error) {
	res, err := t.host.Call(ctx, name, args)
	if err != nil || res.Call == nil { // cancelled, or refused before any server saw it
		return res, err
	}
	c := res.Call
	t.log.Record(ctx, events.Event{Kind: events.Tool, Call: c.ID, Server: c.Server, Tool: c.Tool,
		Arguments: redactJSON(c.Arguments), Result: redact(c.Result), Error: redact(c.Error), LatencyMS: c.LatencyMS, Cached: c.Cached})
	return res, nil
}

// redactJSON redacts a JSON value's keys; what is not JSON stays a string.
func redactJSON(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	out := json.RawMessage(redact(string(b)))
	if !json.Valid(out) {
		q, _ := json.Marshal(string(out))
		return q
	}
	return out
}

// eventVerifier is an item's verifier recording each candidate's scores
// (or the verifier's failure) as a verifier event at the candidate's call
// identity.
type eventVerifier struct {
	v   verify.Verifier
	log *events.Log
}

func (v eventVerifier) Kind() string { return v.v.Kind() }

func (v eventVerifier) Verify(ctx context.Context, req verify.Request) (verify.Scores, error) {
	sc, err := v.v.Verify(ctx, req)
	e := events.Event{Kind: events.Verifier, Call: req.Call, Scores: sc}
	if err != nil {
		if ctx.Err() != nil {
			return sc, err
		}
		e.Error = redact(err.Error())
	}
	v.log.Record(ctx, e)
	return sc, err
}
