package view

import (
	"context"
	"fmt"
	"html"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

// TestItemTrajectoryFromEvents: a ReAct item with MCP tool calls draws its
// trajectory from its events, step by step: each model call with its role
// and tokens, each tool call with its server, tool, latency and result; on
// the rerun the same calls, the model's from the cache and the tools'
// replayed. Its conversation shows the thought, the call and the result.
func TestItemTrajectoryFromEvents(t *testing.T) {
	srv, f := server(t)
	tool := regexp.MustCompile(`(?s)<div class="step action event tool"><div class="kind">tool call · <span class="server">calc</span> · <b>get-sum</b> · <span class="latency">([0-9.]+) ms</span>( · <span class="badge sim replayed">replayed</span>)?`)
	for _, c := range []struct {
		run      string
		replayed bool
	}{{"mcp", false}, {"mcp-rerun", true}} {
		code, body := get(t, srv.URL+"/runs/"+formatInt(f.runs[c.run])+"/items/0")
		if code != 200 {
			t.Fatalf("%s: status %d", c.run, code)
		}
		traj := body[strings.Index(body, `id="trajectory"`)+1:]
		if !strings.Contains(body, `id="trajectory"`) || !strings.Contains(traj, "step t0/s1") || !strings.Contains(traj, "step t0/s2") {
			t.Fatalf("%s: no trajectory of steps t0/s1, t0/s2:\n%s", c.run, clipText(traj, 3000))
		}
		m := tool.FindStringSubmatch(traj)
		if m == nil {
			t.Fatalf("%s: no tool call with server, tool and latency in the trajectory:\n%s", c.run, clipText(traj, 3000))
		}
		if (m[2] != "") != c.replayed {
			t.Errorf("%s: replayed shown %v, want %v", c.run, m[2] != "", c.replayed)
		}
		if !strings.Contains(traj, "The sum of 12 and 30 is 42.") || !strings.Contains(traj, "model call · model") ||
			strings.Contains(traj, "cache hit") != c.replayed {
			t.Errorf("%s: trajectory lacks the result, the model call's role, or shows the cache wrongly:\n%s", c.run, clipText(traj, 3000))
		}
		if !strings.Contains(body, `id="conversation"`) || !strings.Contains(body, "<code>calc get-sum {") {
			t.Errorf("%s: no conversation with the tool call", c.run)
		}
	}
}

// TestBonItemShowsCandidates: a bon item lists its candidates with their
// verifier scores and the rules that pick each; its trajectory has each
// candidate's verifier event.
func TestBonItemShowsCandidates(t *testing.T) {
	srv, f := server(t)
	code, body := get(t, srv.URL+"/runs/"+formatInt(f.runs["bon"])+"/items/0")
	if code != 200 || !strings.Contains(body, `id="candidatetable"`) {
		t.Fatalf("status %d, no candidate table", code)
	}
	table := body[strings.Index(body, `id="candidatetable"`):]
	table = table[:strings.Index(table, "</table>")]
	rows := regexp.MustCompile(`<tr( class="chosen")?><td class="num">(\d)</td>.*?<td class="num">([0-9.]+)</td><td class="small">([0-9. ·]+)`).FindAllStringSubmatch(table, -1)
	chosen := 0
	for _, r := range rows {
		if r[1] != "" {
			chosen++
		}
	}
	if len(rows) != 4 || chosen != 1 || !strings.Contains(table, `<span class="badge ok">best</span>`) {
		t.Fatalf("%d candidate rows with scores, %d chosen:\n%s", len(rows), chosen, table)
	}
	// Each row's step scores are its verifier event's.
	st, err := store.OpenReadOnly(context.Background(), f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.ItemEvents(context.Background(), f.runs["bon"], 0)
	if err != nil {
		t.Fatal(err)
	}
	scores := map[string]string{}
	for _, e := range evs {
		if e.Kind == events.Verifier {
			var parts []string
			for _, v := range e.Scores {
				parts = append(parts, fmt.Sprintf("%.3f", v))
			}
			scores[e.Call] = strings.Join(parts, " · ")
		}
	}
	for _, r := range rows {
		if want := scores["s"+r[2]+"/verify"]; strings.TrimSpace(r[4]) != want || want == "" {
			t.Errorf("candidate %s: step scores %q, its verifier event's %q", r[2], r[4], want)
		}
	}
	for i := range 4 {
		if !strings.Contains(body, "verifier · <code>s"+string(rune('0'+i))+"/verify</code>") {
			t.Errorf("no verifier event of candidate %d", i)
		}
	}
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestRunTablesFromRows: the run page's report table is the report's own
// cells (results.Row laid out by render.TableCells), cell for cell, not
// Markdown parsed back: a cell holding a pipe stays one cell.
func TestRunTablesFromRows(t *testing.T) {
	srv, f := server(t)
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(ctx, f.runs["debate"])
	if err != nil {
		t.Fatal(err)
	}
	row, _, err := results.Row(ctx, st, cat, run)
	if err != nil {
		t.Fatal(err)
	}
	row.Params += " | a pipe"
	header, body, _, _ := render.TableCells([]render.Row{row})
	_, page := get(t, srv.URL+"/runs/"+formatInt(run.ID))
	table := page[strings.Index(page, `<table class="report">`):]
	table = table[:strings.Index(table, "</table>")]
	cells := func(tag string, s string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(s, -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
		return out
	}
	if got := cells("th", table); !reflect.DeepEqual(got, header) {
		t.Errorf("header %q, want %q", got, header)
	}
	got := cells("td", table)
	want := body[0]
	for i := range want { // the page's row has the run's own params, without the pipe
		if header[i] == "params" {
			want[i] = strings.TrimSuffix(want[i], " | a pipe")
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row %q, want %q", got, want)
	}
	// The same cells carry a pipe as it is.
	var g tableGrid
	g.Header, g.Rows, _, g.Notes = render.TableCells([]render.Row{row})
	if i := slices.Index(g.Header, "params"); i < 0 || !strings.HasSuffix(g.Rows[0][i], " | a pipe") {
		t.Errorf("params cell %q", g.Rows[0])
	}
}
