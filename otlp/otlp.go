// Package otlp exports runs' events as OpenTelemetry traces following the
// GenAI semantic conventions, with the official Go SDK: one trace a run,
// the run's span over its items' spans, an item's over its steps' spans,
// and under a step a span per model call (gen_ai.operation.name chat: the
// role, the model, tokens, latency) and per tool call (execute_tool: the
// server, the tool, its arguments and result), user turns and verifier
// scores. Out to an OTLP/HTTP endpoint (Jaeger, Phoenix, Langfuse take
// it), or to a file of OTLP/JSON lines, one export request a line (the
// OpenTelemetry Collector's file format). It reads only events and call
// records, which hold no key: bench redacts them as they are written.
package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/store"
)

// ServiceName is the traces' service (resource attribute service.name).
const ServiceName = "reasonbench"

// scope is the instrumentation scope the spans are made under.
const scope = "github.com/reasonbench/reasonbench/otlp"

// Attributes of ours, beside the GenAI conventions'.
const (
	attrRunID     = attribute.Key("reasonbench.run.id")
	attrTask      = attribute.Key("reasonbench.task")
	attrStrategy  = attribute.Key("reasonbench.strategy")
	attrParams    = attribute.Key("reasonbench.params")
	attrSimulated = attribute.Key("reasonbench.simulated")
	attrItem      = attribute.Key("reasonbench.item.index")
	attrItemKey   = attribute.Key("reasonbench.item.key")
	attrCorrect   = attribute.Key("reasonbench.verdict.correct")
	attrScore     = attribute.Key("reasonbench.verdict.score")
	attrAnswer    = attribute.Key("reasonbench.verdict.answer")
	attrStep      = attribute.Key("reasonbench.step")
	attrRole      = attribute.Key("reasonbench.role")
	attrCall      = attribute.Key("reasonbench.call")
	attrCallID    = attribute.Key("reasonbench.call.record")
	attrPurpose   = attribute.Key("reasonbench.purpose")
	attrLatency   = attribute.Key("reasonbench.latency_ms")
	attrCached    = attribute.Key("reasonbench.cache_hit")
	attrReplayed  = attribute.Key("reasonbench.tool.replayed")
	attrServer    = attribute.Key("reasonbench.tool.server")
	attrReasoning = attribute.Key("reasonbench.usage.reasoning_tokens")
	attrCost      = attribute.Key("reasonbench.cost")
	attrUserText  = attribute.Key("reasonbench.user.text")
	attrScores    = attribute.Key("reasonbench.verifier.scores")
	attrError     = attribute.Key("error.type")
)

// Export writes each run's events as one trace to exp and flushes it. A
// run without events (recorded before them) is a trace of its run and item
// spans alone.
func Export(ctx context.Context, st *store.Store, runs []store.Run, exp sdktrace.SpanExporter) error {
	ids := &idGenerator{}
	// Blocking: a full queue waits rather than dropping spans; the
	// exporter's failures, which the SDK only logs, are kept and returned.
	rec := &recording{SpanExporter: exp}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(rec, sdktrace.WithBlocking()), sdktrace.WithIDGenerator(ids),
		sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(ServiceName))),
		sdktrace.WithSpanLimits(spanLimits()))
	tr := tp.Tracer(scope)
	var err error
	for _, r := range runs {
		if err = exportRun(ctx, st, tr, ids, r); err != nil {
			break
		}
	}
	if serr := tp.Shutdown(context.WithoutCancel(ctx)); err == nil && serr != nil {
		err = fmt.Errorf("otlp: %w", serr)
	}
	if err == nil {
		err = rec.failure()
	}
	return err
}

// recording is an exporter that keeps its first failure.
type recording struct {
	sdktrace.SpanExporter
	mu  sync.Mutex
	err error
}

func (r *recording) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := r.SpanExporter.ExportSpans(ctx, spans)
	if err != nil {
		r.mu.Lock()
		if r.err == nil {
			r.err = fmt.Errorf("otlp: export %d spans: %w", len(spans), err)
		}
		r.mu.Unlock()
	}
	return err
}

func (r *recording) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// spanLimits keep every attribute of a span (a tool call's arguments and
// result, cut to maxValue bytes).
func spanLimits() sdktrace.SpanLimits {
	l := sdktrace.NewSpanLimits()
	l.AttributeValueLengthLimit = maxValue
	return l
}

// maxValue bounds an attribute's string value (a tool's result may be
// megabytes).
const maxValue = 16 << 10

func exportRun(ctx context.Context, st *store.Store, tr trace.Tracer, ids *idGenerator, run store.Run) error {
	items, err := st.Items(ctx, run.ID)
	if err != nil {
		return err
	}
	byItem, err := st.RunEvents(ctx, run.ID, true)
	if err != nil {
		return err
	}
	calls, err := st.Calls(ctx, run.ID, -1)
	if err != nil {
		return err
	}
	responseModel := map[int64]string{}
	for _, c := range calls {
		var r struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(c.Response, &r) == nil && r.Model != "" {
			responseModel[c.ID] = r.Model
		}
	}
	ids.reset(run)
	// Lay each item's events out in time: a model call ends when its
	// record was made and lasted its latency; the events without a time
	// of their own follow the one before them in the item's order.
	start, end := run.StartedAt, run.FinishedAt
	type laid struct {
		item       store.Item
		evs        []events.Event
		start, end time.Time
		at         []time.Time // each event's start
	}
	var all []laid
	for _, it := range items {
		l := laid{item: it, evs: byItem[it.Index]}
		var cursor time.Time
		for _, e := range l.evs {
			if e.Kind == events.Model && !e.Time.IsZero() {
				s := e.Time.Add(-dur(e.LatencyMS))
				if l.start.IsZero() || s.Before(l.start) {
					l.start = s
				}
			}
		}
		if l.start.IsZero() {
			l.start = start
		}
		cursor = l.start
		for _, e := range l.evs {
			s := cursor
			if e.Kind == events.Model && !e.Time.IsZero() {
				s = e.Time.Add(-dur(e.LatencyMS))
			}
			l.at = append(l.at, s)
			if end := s.Add(dur(e.LatencyMS)); end.After(cursor) {
				cursor = end
			}
		}
		l.end = cursor
		if w := l.start.Add(time.Duration(it.WallSeconds * float64(time.Second))); w.After(l.end) {
			l.end = w
		}
		if l.end.After(end) {
			end = l.end
		}
		if start.IsZero() || l.start.Before(start) {
			start = l.start
		}
		all = append(all, l)
	}
	if end.Before(start) {
		end = start
	}
	runAttrs := []attribute.KeyValue{attrRunID.Int64(run.ID), attrTask.String(run.Task), attrStrategy.String(run.Strategy),
		attrParams.String(string(run.Params)), semconv.GenAIRequestModel(run.Model), attrSimulated.Bool(run.Simulated)}
	if run.Experiment != "" {
		runAttrs = append(runAttrs, attribute.String("reasonbench.experiment", run.Experiment))
	}
	rctx, runSpan := tr.Start(ctx, fmt.Sprintf("run %d %s on %s", run.ID, run.Strategy, run.Task),
		trace.WithTimestamp(start), trace.WithAttributes(runAttrs...))
	for _, l := range all {
		ictx, itemSpan := tr.Start(rctx, fmt.Sprintf("item %d", l.item.Index), trace.WithTimestamp(l.start),
			trace.WithAttributes(attrItem.Int(l.item.Index), attrItemKey.String(l.item.Key), attrCorrect.Bool(l.item.Correct),
				attrScore.Float64(l.item.Score)))
		if l.item.Error != "" {
			itemSpan.SetStatus(codes.Error, l.item.Error)
		}
		var stepCtx context.Context
		var stepSpan trace.Span
		stepName, stepEnd := "", time.Time{}
		endStep := func() {
			if stepSpan != nil {
				stepSpan.End(trace.WithTimestamp(stepEnd))
				stepSpan = nil
			}
		}
		for i, e := range l.evs {
			if e.Kind == events.Verdict {
				endStep()
				itemSpan.SetAttributes(attrCorrect.Bool(e.Correct), attrScore.Float64(e.Score), attrAnswer.String(e.Answer))
				continue
			}
			parent := ictx
			if e.Step != "" {
				if stepSpan == nil || e.Step != stepName {
					endStep()
					stepName, stepEnd = e.Step, l.at[i]
					stepCtx, stepSpan = tr.Start(ictx, "step "+e.Step, trace.WithTimestamp(l.at[i]), trace.WithAttributes(attrStep.String(e.Step)))
				}
				parent = stepCtx
			} else {
				endStep()
			}
			s := l.at[i]
			f := s.Add(dur(e.LatencyMS))
			if f.After(stepEnd) {
				stepEnd = f
			}
			eventSpan(parent, tr, e, s, f, run, responseModel)
		}
		endStep()
		itemSpan.End(trace.WithTimestamp(l.end))
	}
	runSpan.End(trace.WithTimestamp(end))
	return nil
}

// eventSpan makes the span of one event (not a verdict) under parent.
func eventSpan(parent context.Context, tr trace.Tracer, e events.Event, start, end time.Time, run store.Run, responseModel map[int64]string) {
	var name string
	kind := trace.SpanKindInternal
	var attrs []attribute.KeyValue
	if e.Step != "" {
		attrs = append(attrs, attrStep.String(e.Step))
	}
	switch e.Kind {
	case events.Model:
		model := requestModel(e.Role, run.Model)
		name, kind = "chat "+model, trace.SpanKindClient
		attrs = append(attrs, semconv.GenAIOperationNameChat, semconv.GenAIProviderNameKey.String(provider(run)),
			semconv.GenAIRequestModel(model), attrRole.String(e.Role), attrCall.String(e.Call), attrCallID.Int64(e.CallID),
			attrPurpose.String(e.Purpose), semconv.GenAIUsageInputTokens(e.PromptTokens), semconv.GenAIUsageOutputTokens(e.CompletionTokens),
			attrLatency.Float64(e.LatencyMS), attrCached.Bool(e.Cached))
		if m := responseModel[e.CallID]; m != "" {
			attrs = append(attrs, semconv.GenAIResponseModel(m))
		}
		if e.ReasoningTokens > 0 {
			attrs = append(attrs, attrReasoning.Int(e.ReasoningTokens))
		}
		if e.Cost != 0 {
			attrs = append(attrs, attrCost.Float64(e.Cost))
		}
	case events.Tool:
		name = "execute_tool " + e.Tool
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(e.Tool), semconv.GenAIToolCallID(e.Call),
			semconv.GenAIToolType("function"), attrServer.String(e.Server), semconv.GenAIToolCallArgumentsKey.String(string(e.Arguments)),
			semconv.GenAIToolCallResultKey.String(e.Result), attrLatency.Float64(e.LatencyMS), attrReplayed.Bool(e.Cached))
	case events.User:
		name = "user turn"
		attrs = append(attrs, attrUserText.String(e.Text))
	case events.Verifier:
		name = "verify " + e.Call
		attrs = append(attrs, attrCall.String(e.Call), attrScores.Float64Slice(e.Scores))
		if n := len(e.Scores); n > 0 {
			attrs = append(attrs, semconv.GenAIEvaluationName("verifier"), semconv.GenAIEvaluationScoreValue(e.Scores[n-1]))
		}
	default:
		return
	}
	_, sp := tr.Start(parent, name, trace.WithTimestamp(start), trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	if e.Error != "" {
		sp.SetStatus(codes.Error, e.Error)
		sp.SetAttributes(attrError.String(e.Kind.String() + "_error"))
	}
	sp.End(trace.WithTimestamp(end))
}

// requestModel is the model a role's calls asked: an agent's own
// (MODEL@NAME), else the run's.
func requestModel(role, runModel string) string {
	if spec, ok := strings.CutPrefix(role, "agent "); ok {
		m, _, _ := strings.Cut(spec, "@")
		return m
	}
	return runModel
}

// provider is the GenAI provider name: the simulator, or a server
// speaking the OpenAI API.
func provider(run store.Run) string {
	if run.Simulated {
		return "reasonbench.simulator"
	}
	return "openai"
}

func dur(ms float64) time.Duration { return time.Duration(math.Round(ms * float64(time.Millisecond))) }

// idGenerator makes a run's trace and span ids from the run, so that the
// same run exports the same ids every time.
type idGenerator struct {
	mu    sync.Mutex
	trace trace.TraceID
	next  uint64
}

func (g *idGenerator) reset(run store.Run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	sum := sha256.Sum256(fmt.Appendf(nil, "reasonbench run %d %s %s", run.ID, run.StartedAt.UTC().Format(time.RFC3339Nano), run.Spec))
	copy(g.trace[:], sum[:16])
	g.next = binary.BigEndian.Uint64(sum[16:24]) | 1
}

func (g *idGenerator) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	return g.trace, g.NewSpanID(context.Background(), g.trace)
}

func (g *idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	var id trace.SpanID
	binary.BigEndian.PutUint64(id[:], g.next)
	g.next++
	if g.next == 0 {
		g.next = 1
	}
	return id
}

// HTTPExporter sends spans to an OTLP/HTTP endpoint: a URL such as
// http://127.0.0.1:4318 (the traces path /v1/traces is added when the URL
// has none). Headers (an API key) come from OTEL_EXPORTER_OTLP_HEADERS,
// never from the run.
func HTTPExporter(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp endpoint %q: want an http or https URL such as http://127.0.0.1:4318", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
}

// FileExporter writes spans to w as OTLP/JSON, one export request a line,
// encoded by the OTLP/HTTP exporter's own JSON encoding (no request leaves
// the process: a transport takes the body).
func FileExporter(ctx context.Context, w io.Writer) (sdktrace.SpanExporter, error) {
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL("http://otlp.file.invalid/v1/traces"),
		otlptracehttp.WithEncoding(otlptracehttp.EncodingJSON), otlptracehttp.WithCompression(otlptracehttp.NoCompression),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
		otlptracehttp.WithHTTPClient(&http.Client{Transport: &fileTransport{w: w}}))
}

// fileTransport takes each export request's body and writes it as a line.
type fileTransport struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *fileTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	defer r.Body.Close()
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	var line bytes.Buffer
	if err := json.Compact(&line, b); err != nil {
		return nil, fmt.Errorf("otlp file: the exporter's body is not JSON: %w", err)
	}
	line.WriteByte('\n')
	t.mu.Lock()
	_, err = t.w.Write(line.Bytes())
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}
