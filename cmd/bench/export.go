package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// The JSON Lines export: a {"run": ...} header, then one object per item.
type (
	exportRun struct {
		ID          int64           `json:"id"`
		Experiment  string          `json:"experiment"`
		Task        string          `json:"task"`
		Strategy    string          `json:"strategy"`
		Params      json.RawMessage `json:"params"`
		Model       string          `json:"model"`
		Endpoint    string          `json:"endpoint"`
		Simulated   bool            `json:"simulated"`
		SimParams   json.RawMessage `json:"sim_params"`
		Seed        int64           `json:"seed"`
		Range       string          `json:"range"`
		Spec        json.RawMessage `json:"spec"` // the recorded config, typed params and prompt hashes
		CodeVersion string          `json:"code_version"`
		Status      string          `json:"status"`
		StartedAt   string          `json:"started_at"`
		FinishedAt  string          `json:"finished_at,omitempty"`
		WallSeconds float64         `json:"wall_seconds"`
		Error       string          `json:"error,omitempty"`
		Items       int             `json:"items"`
	}
	exportItem struct {
		Run              int64              `json:"run"`
		Index            int                `json:"idx"`
		Key              string             `json:"key"`
		Input            string             `json:"input"`
		Output           string             `json:"output"`
		Gold             string             `json:"gold"`   // the reference answer ("" when the task checks answers by rule, e.g. game24)
		Answer           string             `json:"answer"` // what the scorer extracted from the output
		Correct          bool               `json:"correct"`
		Score            float64            `json:"score"`
		Metrics          map[string]float64 `json:"metrics"`
		Detail           json.RawMessage    `json:"detail"`
		PromptTokens     int                `json:"prompt_tokens"`
		CompletionTokens int                `json:"completion_tokens"`
		NumCalls         int                `json:"n_calls"`
		Requests         int                `json:"requests"`
		Cost             float64            `json:"cost"`
		WallSeconds      float64            `json:"wall_seconds"`
		Error            string             `json:"error,omitempty"`
		Samples          []exportSample     `json:"samples,omitempty"` // CoT-SC: each sample's vote key and verdict
		Trajectory       []exportStep       `json:"trajectory,omitempty"`
		Executions       []store.Execution  `json:"executions,omitempty"`
		Tree             []exportNode       `json:"tree,omitempty"`
		Calls            []exportCall       `json:"calls,omitempty"` // with --calls`
		// Events are what happened in the item, in its order: model calls
		// (by reference to their call record: role, identity, tokens,
		// latency, cache hit), tool calls, user turns, verifier scores,
		// the verdict.
		Events []events.Event `json:"events,omitempty"`
	}
	exportSample struct {
		Key     *string `json:"key"` // what the sample votes for; null when it abstains
		Answer  string  `json:"answer"`
		Correct bool    `json:"correct"`
	}
	exportStep struct {
		Trial   int    `json:"trial"`
		Step    int    `json:"step"`
		Kind    string `json:"kind"`
		Content string `json:"content"`
	}
	exportNode struct {
		ID       int     `json:"id"`
		Parent   int     `json:"parent"`
		Depth    int     `json:"depth"`
		Thought  string  `json:"thought"`
		Value    float64 `json:"value"`
		Selected bool    `json:"selected"`
		Pruned   bool    `json:"pruned"`
		Terminal bool    `json:"terminal"`
		// Visits counts MCTS/LATS iterations through the node (absent for
		// the other searches).
		Visits int `json:"visits,omitempty"`
	}
	exportCall struct {
		ID               int64           `json:"id"`
		Purpose          string          `json:"purpose"`
		Request          json.RawMessage `json:"request"`
		Response         json.RawMessage `json:"response"`
		PromptTokens     int             `json:"prompt_tokens"`
		CompletionTokens int             `json:"completion_tokens"`
		Requests         int             `json:"requests"`
		Cost             float64         `json:"cost"`
		LatencyMS        float64         `json:"latency_ms"`
		CacheHit         bool            `json:"cache_hit"`
		Error            string          `json:"error,omitempty"`
		CreatedAt        string          `json:"created_at"`
	}
)

func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	format := fs.String("format", "jsonl", "jsonl: a {\"run\": ...} header line, then one JSON object per item; "+
		"parquet: runs.parquet, items.parquet, calls.parquet and events.parquet in the --out folder")
	out := fs.String("out", "", "output file (default: stdout); for parquet, the folder")
	withCalls := fs.Bool("calls", false, "include each item's model calls (requests and responses in full)")
	otlpFile := fs.String("otlp", "", "write the runs' events as OpenTelemetry traces to this file, OTLP/JSON (one export request a line); see docs/otlp.md")
	otlpEndpoint := fs.String("otlp-endpoint", "", "send the runs' events as OpenTelemetry traces to this OTLP/HTTP endpoint, e.g. http://127.0.0.1:4318 (Jaeger, Phoenix, Langfuse)")
	db := dbFlag(fs)
	const usage = "usage: bench export RUN [--format jsonl] [--out FILE] [--calls] | bench export RUN... --format parquet --out DIR | bench export RUN... --otlp FILE | --otlp-endpoint URL"
	ids, err := parseRunIDArgs(fs, args, usage)
	if err != nil {
		return err
	}
	if *otlpFile != "" || *otlpEndpoint != "" {
		if *format != "jsonl" || *out != "" || *withCalls {
			return usageError{errors.New("--otlp and --otlp-endpoint export traces: leave out --format, --out and --calls")}
		}
		return exportOTLP(ctx, *db, ids, *otlpFile, *otlpEndpoint, stderr)
	}
	switch *format {
	case "jsonl":
		if len(ids) != 1 {
			return usageError{errors.New("--format jsonl exports one run; --format parquet takes several")}
		}
	case "parquet":
		if *out == "" {
			return usageError{errors.New("--format parquet needs --out DIR, the folder for runs.parquet, items.parquet, calls.parquet and events.parquet")}
		}
	default:
		return usageError{fmt.Errorf("unknown format %q (known: jsonl, parquet)", *format)}
	}
	st, err := openReading(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	runs := make([]store.Run, len(ids))
	for i, id := range ids {
		if runs[i], err = st.GetRun(ctx, id); err != nil {
			return usageError{err}
		}
	}
	if *format == "parquet" {
		if err := exportParquet(ctx, st, runs, *out); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "bench export: runs.parquet, items.parquet, calls.parquet, events.parquet in %s\n", *out)
		return nil
	}
	w := stdout
	var file *os.File
	if *out != "" {
		if file, err = os.Create(*out); err != nil {
			return usageError{err}
		}
		w = file
	}
	err = exportRunJSONL(ctx, st, runs[0], *withCalls, w)
	if file != nil {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(*out)
		}
	}
	return err
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// exportRunJSONL writes the header and one line per item.
func exportRunJSONL(ctx context.Context, st *store.Store, run store.Run, withCalls bool, w io.Writer) error {
	items, err := st.Items(ctx, run.ID)
	if err != nil {
		return err
	}
	callsByItem := map[int][]exportCall{}
	evs, err := results.Events(ctx, st, run.ID)
	if err != nil {
		return err
	}
	var numbers map[int64]int
	if withCalls {
		calls, err := st.Calls(ctx, run.ID, -1)
		if err != nil {
			return err
		}
		refs := make([]callRef, len(calls))
		for i, c := range calls {
			refs[i] = callRef{id: c.ID, item: c.Item, identity: c.Identity}
		}
		numbers = callNumbers(refs)
		slices.SortStableFunc(calls, func(a, b store.Call) int { return cmp.Compare(numbers[a.ID], numbers[b.ID]) })
		for _, c := range calls {
			callsByItem[c.Item] = append(callsByItem[c.Item], exportCall{
				ID: int64(numbers[c.ID]), Purpose: c.Purpose, Request: c.Request, Response: c.Response, PromptTokens: c.PromptTokens,
				CompletionTokens: c.CompletionTokens, Requests: c.Requests, Cost: c.Cost,
				LatencyMS: float64(c.Latency.Microseconds()) / 1000, CacheHit: c.CacheHit, Error: c.Error, CreatedAt: rfc3339(c.CreatedAt),
			})
		}
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	header := exportRun{
		ID: run.ID, Experiment: run.Experiment, Task: run.Task, Strategy: run.Strategy, Params: run.Params, Model: run.Model,
		Endpoint: run.Endpoint, Simulated: run.Simulated, SimParams: run.SimParams, Seed: run.Seed, Range: run.Range,
		Spec: run.Spec, CodeVersion: run.CodeVersion, Status: run.Status, StartedAt: rfc3339(run.StartedAt),
		FinishedAt: rfc3339(run.FinishedAt), WallSeconds: run.WallSeconds, Error: run.Error, Items: len(items),
	}
	if err := enc.Encode(map[string]exportRun{"run": header}); err != nil {
		return err
	}
	if numbers == nil {
		var refs []callRef
		for item, es := range evs {
			for _, e := range es {
				if e.CallID != 0 {
					refs = append(refs, callRef{id: e.CallID, item: item, identity: e.Call})
				}
			}
		}
		numbers = callNumbers(refs)
	}
	for _, es := range evs {
		for i := range es {
			if es[i].CallID != 0 {
				es[i].CallID = int64(numbers[es[i].CallID])
			}
		}
	}
	answers := results.RunAnswers(bench.Catalog{}, run)
	for _, it := range items {
		e := exportItem{
			Run: run.ID, Index: it.Index, Key: it.Key, Input: it.Input, Output: it.Output, Correct: it.Correct, Score: it.Score,
			Metrics: it.Metrics, Detail: it.Detail, PromptTokens: it.PromptTokens, CompletionTokens: it.CompletionTokens,
			NumCalls: it.Calls, Requests: it.Requests, Cost: it.Cost, WallSeconds: it.WallSeconds, Error: it.Error,
			Calls: callsByItem[it.Index], Events: evs[it.Index],
		}
		if e.Metrics == nil {
			e.Metrics = map[string]float64{}
		}
		e.Gold, e.Answer = answers.Gold(it.Index), answers.Extracted(it.Index, it.Output)
		// Any item's samples in the shared samples shape (items recorded
		// before vote keys were kept: the extracted answers as keys).
		if smp, ok := reading.ReadSamples(it.Detail); ok {
			for i := range smp.Keys {
				e.Samples = append(e.Samples, exportSample{Key: smp.Keys[i], Answer: smp.Answers[i], Correct: smp.Correct[i]})
			}
		}
		steps, err := st.Steps(ctx, run.ID, it.Index)
		if err != nil {
			return err
		}
		for _, s := range steps {
			e.Trajectory = append(e.Trajectory, exportStep{Trial: s.Trial, Step: s.Step, Kind: s.Kind, Content: s.Content})
		}
		if e.Executions, err = st.Executions(ctx, run.ID, it.Index); err != nil {
			return err
		}
		nodes, err := st.Nodes(ctx, run.ID, it.Index)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			e.Tree = append(e.Tree, exportNode{ID: n.ID, Parent: n.Parent, Depth: n.Depth, Thought: n.Thought, Value: n.Value,
				Selected: n.Selected, Pruned: n.Pruned, Terminal: n.Terminal, Visits: n.Visits})
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// callRef is a stored call record as the export numbers it.
type callRef struct {
	id       int64 // the store's record id
	item     int
	identity string // llm.Request.Call; "" for calls recorded before identities
}

// callNumbers numbers each item's calls 1, 2, ... in the order of their
// identities (digit runs as numbers), the attempts of one identity in the
// order they were made. The export shows these in place of the store's
// record ids, which follow the order calls ended in and so differ at
// another concurrency: identical runs export identically.
func callNumbers(calls []callRef) map[int64]int {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b callRef) int {
		if c := cmp.Compare(a.item, b.item); c != 0 {
			return c
		}
		if c := events.Natural(a.identity, b.identity); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	out := make(map[int64]int, len(sorted))
	n := 0
	for i, c := range sorted {
		if i == 0 || c.item != sorted[i-1].item {
			n = 0
		}
		n++
		out[c.id] = n
	}
	return out
}
