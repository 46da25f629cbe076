package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// Parquet export: three tables with typed columns, one row per run, item
// and call, so that pandas or polars read a whole comparison in one line.
// Strategy parameters and metrics become columns of their own (param_b,
// metric_any_at_b), null where a run's strategy or task has none.

// column is one typed column of a table.
type column struct {
	name     string
	typ      reflect.Type // int64, float64, string or bool
	optional bool         // null allowed (a nil value)
	time     bool         // int64 microseconds since 1970, as a timestamp
}

// table is rows of values in column order; an optional column's value is
// nil or a value of its type.
type table struct {
	cols []column
	rows [][]any
}

var (
	tInt64   = reflect.TypeFor[int64]()
	tFloat64 = reflect.TypeFor[float64]()
	tString  = reflect.TypeFor[string]()
	tBool    = reflect.TypeFor[bool]()
)

// rowType is a struct type with one field per column, in order, tagged for
// parquet-go, which takes its schema from it.
func (t table) rowType() reflect.Type {
	fields := make([]reflect.StructField, len(t.cols))
	for i, c := range t.cols {
		tag := c.name
		typ := c.typ
		if c.optional {
			tag += ",optional"
			typ = reflect.PointerTo(typ)
		}
		if c.time {
			tag += ",timestamp(microsecond)"
		}
		if c.typ == tString {
			tag += ",dict"
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	return reflect.StructOf(fields)
}

// write writes the table to a parquet file (zstd pages).
func (t table) write(path string) error {
	typ := t.rowType()
	rows := make([]any, len(t.rows))
	for r, vals := range t.rows {
		v := reflect.New(typ).Elem()
		for i, c := range t.cols {
			if vals[i] == nil {
				if !c.optional {
					return fmt.Errorf("%s: column %s: null in a required column", path, c.name)
				}
				continue
			}
			x := reflect.ValueOf(vals[i])
			if x.Type() != c.typ {
				return fmt.Errorf("%s: column %s: %T, want %s", path, c.name, vals[i], c.typ)
			}
			if c.optional {
				p := reflect.New(c.typ)
				p.Elem().Set(x)
				x = p
			}
			v.Field(i).Set(x)
		}
		rows[r] = v.Interface()
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := parquet.NewGenericWriter[any](f, parquet.SchemaOf(reflect.New(typ).Elem().Interface()), parquet.Compression(&parquet.Zstd))
	if _, err := w.Write(rows); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// micros is a time as a timestamp value, nil for the zero time.
func micros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// exportParquet writes runs.parquet, items.parquet, calls.parquet and
// events.parquet for the runs into dir.
func exportParquet(ctx context.Context, st *store.Store, runs []store.Run, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	runsT, err := runsTable(ctx, st, runs)
	if err != nil {
		return err
	}
	itemsT, err := itemsTable(ctx, st, runs)
	if err != nil {
		return err
	}
	callsT, err := callsTable(ctx, st, runs)
	if err != nil {
		return err
	}
	eventsT, err := eventsTable(ctx, st, runs)
	if err != nil {
		return err
	}
	for name, t := range map[string]table{"runs": runsT, "items": itemsT, "calls": callsT, "events": eventsT} {
		if err := t.write(filepath.Join(dir, name+".parquet")); err != nil {
			return err
		}
	}
	return nil
}

func runsTable(ctx context.Context, st *store.Store, runs []store.Run) (table, error) {
	t := table{cols: []column{
		{name: "run_id", typ: tInt64}, {name: "experiment", typ: tString}, {name: "task", typ: tString},
		{name: "strategy", typ: tString}, {name: "params", typ: tString}, {name: "model", typ: tString},
		{name: "endpoint", typ: tString}, {name: "simulated", typ: tBool}, {name: "sim_params", typ: tString},
		{name: "seed", typ: tInt64}, {name: "range", typ: tString}, {name: "rule", typ: tString},
		{name: "prompts", typ: tString}, {name: "code_version", typ: tString}, {name: "status", typ: tString},
		{name: "started_at", typ: tInt64, time: true}, {name: "finished_at", typ: tInt64, optional: true, time: true},
		{name: "wall_seconds", typ: tFloat64}, {name: "n", typ: tInt64}, {name: "accuracy", typ: tFloat64},
		{name: "prompt_tokens", typ: tInt64}, {name: "completion_tokens", typ: tInt64}, {name: "calls", typ: tInt64},
		{name: "requests", typ: tInt64}, {name: "cost", typ: tFloat64}, {name: "cache_hits", typ: tInt64},
		{name: "cache_saved_tokens", typ: tInt64}, {name: "error", typ: tString},
	}}
	// One column per parameter any of the runs' strategies declares, typed
	// as declared (string if two strategies disagree), and per metric.
	kinds := map[string]param.Kind{}
	var paramNames []string
	sums := make([]bench.Summary, len(runs))
	metricSet := map[string]bool{}
	for i, r := range runs {
		spec, err := strategies.Lookup(r.Strategy)
		if err == nil {
			for _, p := range spec.Params {
				k, seen := kinds[p.Name]
				switch {
				case !seen:
					kinds[p.Name] = p.Kind
					paramNames = append(paramNames, p.Name)
				case k != p.Kind:
					kinds[p.Name] = param.String
				}
			}
		}
		if sums[i], err = bench.Summarize(ctx, st, r.ID); err != nil {
			return t, err
		}
		for m := range sums[i].Metrics {
			metricSet[m] = true
		}
	}
	slices.Sort(paramNames)
	metrics := slices.Sorted(maps.Keys(metricSet))
	fixed := len(t.cols)
	for _, p := range paramNames {
		t.cols = append(t.cols, column{name: "param_" + p, typ: kindType(kinds[p]), optional: true})
	}
	t.cols = append(t.cols, metricColumns(metrics)...)
	for i, r := range runs {
		s := sums[i]
		saved, err := st.CacheSavings(ctx, r.ID)
		if err != nil {
			return t, err
		}
		row := []any{r.ID, r.Experiment, r.Task, r.Strategy, string(r.Params), r.Model, r.Endpoint, r.Simulated,
			string(r.SimParams), r.Seed, r.Range, s.Rule, s.PromptPack, r.CodeVersion, r.Status, r.StartedAt.UnixMicro(),
			micros(r.FinishedAt), r.WallSeconds, int64(s.N), s.Accuracy, int64(s.PromptTokens), int64(s.CompletionTokens),
			int64(s.Calls), int64(s.Requests), s.Cost, int64(saved.Hits), int64(saved.Tokens()), r.Error}
		var params map[string]any
		if err := json.Unmarshal(r.Params, &params); err != nil {
			return t, fmt.Errorf("run %d params: %w", r.ID, err)
		}
		for _, c := range t.cols[fixed : fixed+len(paramNames)] {
			row = append(row, paramValue(params[strings.TrimPrefix(c.name, "param_")], c.typ))
		}
		t.rows = append(t.rows, append(row, metricCells(metrics, s.Metrics)...))
	}
	return t, nil
}

// metricColumns are optional double columns metric_NAME.
func metricColumns(names []string) []column {
	cols := make([]column, len(names))
	for i, m := range names {
		cols[i] = column{name: "metric_" + m, typ: tFloat64, optional: true}
	}
	return cols
}

// metricCells are the values of metricColumns, nil for a metric not in values.
func metricCells(names []string, values map[string]float64) []any {
	cells := make([]any, len(names))
	for i, m := range names {
		if v, ok := values[m]; ok {
			cells[i] = v
		}
	}
	return cells
}

func kindType(k param.Kind) reflect.Type {
	switch k {
	case param.Int:
		return tInt64
	case param.Float:
		return tFloat64
	case param.Bool:
		return tBool
	}
	return tString
}

// paramValue converts a parameter decoded from the run's JSON to the
// column's type; nil when the run has no such parameter.
func paramValue(v any, typ reflect.Type) any {
	if v == nil {
		return nil
	}
	switch typ {
	case tInt64:
		if f, ok := v.(float64); ok {
			return int64(f)
		}
	case tFloat64:
		if f, ok := v.(float64); ok {
			return f
		}
	case tBool:
		if b, ok := v.(bool); ok {
			return b
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func itemsTable(ctx context.Context, st *store.Store, runs []store.Run) (table, error) {
	t := table{cols: []column{
		{name: "run_id", typ: tInt64}, {name: "idx", typ: tInt64}, {name: "key", typ: tString}, {name: "input", typ: tString},
		{name: "output", typ: tString}, {name: "correct", typ: tBool}, {name: "score", typ: tFloat64},
		{name: "prompt_tokens", typ: tInt64}, {name: "completion_tokens", typ: tInt64}, {name: "reasoning_tokens", typ: tInt64},
		{name: "calls", typ: tInt64}, {name: "requests", typ: tInt64}, {name: "cost", typ: tFloat64},
		{name: "wall_seconds", typ: tFloat64}, {name: "error", typ: tString}, {name: "detail", typ: tString},
	}}
	var all []store.Item
	metricSet := map[string]bool{}
	for _, r := range runs {
		items, err := st.Items(ctx, r.ID)
		if err != nil {
			return t, err
		}
		for _, it := range items {
			for m := range it.Metrics {
				metricSet[m] = true
			}
		}
		all = append(all, items...)
	}
	metrics := slices.Sorted(maps.Keys(metricSet))
	t.cols = append(t.cols, metricColumns(metrics)...)
	for _, it := range all {
		row := []any{it.RunID, int64(it.Index), it.Key, it.Input, it.Output, it.Correct, it.Score, int64(it.PromptTokens),
			int64(it.CompletionTokens), int64(it.ReasoningTokens), int64(it.Calls), int64(it.Requests), it.Cost,
			it.WallSeconds, it.Error, string(it.Detail)}
		t.rows = append(t.rows, append(row, metricCells(metrics, it.Metrics)...))
	}
	return t, nil
}

func callsTable(ctx context.Context, st *store.Store, runs []store.Run) (table, error) {
	t := table{cols: []column{
		{name: "run_id", typ: tInt64}, {name: "item_idx", typ: tInt64}, {name: "call_id", typ: tInt64},
		{name: "purpose", typ: tString}, {name: "prompt_tokens", typ: tInt64}, {name: "completion_tokens", typ: tInt64},
		{name: "reasoning_tokens", typ: tInt64}, {name: "requests", typ: tInt64}, {name: "cost", typ: tFloat64},
		{name: "latency_ms", typ: tFloat64}, {name: "cache_hit", typ: tBool}, {name: "error", typ: tString},
		{name: "created_at", typ: tInt64, optional: true, time: true},
		{name: "request", typ: tString}, {name: "response", typ: tString},
	}}
	for _, r := range runs {
		calls, err := st.Calls(ctx, r.ID, -1)
		if err != nil {
			return t, err
		}
		for _, c := range calls {
			t.rows = append(t.rows, []any{c.RunID, int64(c.Item), c.ID, c.Purpose, int64(c.PromptTokens),
				int64(c.CompletionTokens), int64(c.ReasoningTokens), int64(c.Requests), c.Cost,
				float64(c.Latency.Microseconds()) / 1000, c.CacheHit, c.Error, micros(c.CreatedAt),
				string(c.Request), string(c.Response)})
		}
	}
	return t, nil
}

// eventsTable is one row per event of each item, in the item's order
// (position), with the columns of every kind (zero where the kind has
// none): a model call's joined from its call record, call_id naming it.
func eventsTable(ctx context.Context, st *store.Store, runs []store.Run) (table, error) {
	t := table{cols: []column{
		{name: "run_id", typ: tInt64}, {name: "item_idx", typ: tInt64}, {name: "position", typ: tInt64},
		{name: "kind", typ: tString}, {name: "step", typ: tString}, {name: "step_seq", typ: tInt64}, {name: "call", typ: tString},
		{name: "role", typ: tString}, {name: "call_id", typ: tInt64, optional: true}, {name: "purpose", typ: tString},
		{name: "prompt_tokens", typ: tInt64}, {name: "completion_tokens", typ: tInt64}, {name: "reasoning_tokens", typ: tInt64},
		{name: "cost", typ: tFloat64}, {name: "latency_ms", typ: tFloat64}, {name: "cached", typ: tBool}, {name: "error", typ: tString},
		{name: "server", typ: tString}, {name: "tool", typ: tString}, {name: "arguments", typ: tString}, {name: "result", typ: tString},
		{name: "text", typ: tString}, {name: "scores", typ: tString}, {name: "correct", typ: tBool}, {name: "score", typ: tFloat64},
		{name: "answer", typ: tString},
	}}
	for _, r := range runs {
		byItem, err := st.RunEvents(ctx, r.ID, true)
		if err != nil {
			return t, err
		}
		for _, idx := range slices.Sorted(maps.Keys(byItem)) {
			for pos, e := range byItem[idx] {
				var callID any
				if e.CallID != 0 {
					callID = e.CallID
				}
				scores := ""
				if e.Scores != nil {
					b, _ := json.Marshal(e.Scores)
					scores = string(b)
				}
				t.rows = append(t.rows, []any{r.ID, int64(idx), int64(pos), e.Kind.String(), e.Step, int64(e.Seq), e.Call, e.Role, callID,
					e.Purpose, int64(e.PromptTokens), int64(e.CompletionTokens), int64(e.ReasoningTokens), e.Cost, e.LatencyMS, e.Cached,
					e.Error, e.Server, e.Tool, string(e.Arguments), e.Result, e.Text, scores, e.Correct, e.Score, e.Answer})
			}
		}
	}
	return t, nil
}
