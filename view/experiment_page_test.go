package view

import (
	"strings"
	"testing"
)

// TestExperimentPageTableAndLinks: the experiment table is an HTML table
// (not Markdown in a <pre>) linking each configuration's runs and a
// comparison of them all; a running run shows its time so far.
func TestExperimentPageTableAndLinks(t *testing.T) {
	srv, f := server(t)
	code, body := get(t, srv.URL+"/experiments/g24")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{`<table class="exp">`, `<a href="/runs/` + formatInt(f.runs["cot"]) + `">`, `href="/compare?runs=`, "<li>"} {
		if !strings.Contains(body, want) {
			t.Errorf("experiment page lacks %q", want)
		}
	}
	// Columns alike in every row (task, model, rule, prompts) stand once
	// above the table, so the rest fits at 1400 px.
	if !strings.Contains(body, `id="shared">Every configuration: task game24 · model sim (simulated)`) || strings.Contains(body, "<th>task</th>") {
		t.Error("the table repeats the task and model in every row rather than saying them once")
	}
	if !strings.Contains(body, "<th>strategy</th>") || !strings.Contains(body, `<th class="num">n</th>`) {
		t.Error("the strategy column, which differs per row, or the numeric n column was folded")
	}
	if strings.Contains(body, "<pre>|") {
		t.Error("the table is still Markdown in a <pre>")
	}
	_, runs := get(t, srv.URL+"/")
	if !strings.Contains(runs, "so far") || !strings.Contains(runs, `<div class="tablewrap"><table id="runs"`) {
		t.Error("the runs page shows no time so far for a running run, or its table does not scroll")
	}
}
