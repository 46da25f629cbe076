// Package report renders run summaries as tables: Markdown (tablewriter),
// CSV and JSON.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Row is one run in a comparison table.
type Row struct {
	RunID       int64              `json:"run_id"`
	Task        string             `json:"task"`
	Strategy    string             `json:"strategy"`
	Params      string             `json:"params"`
	Model       string             `json:"model"`
	Simulated   bool               `json:"simulated"`
	Status      string             `json:"status"`
	N           int                `json:"n"`
	Accuracy    float64            `json:"accuracy"`
	Metrics     map[string]float64 `json:"metrics"`
	Tokens      int                `json:"tokens"`
	Calls       int                `json:"calls"`
	Cost        float64            `json:"cost"`
	WallSeconds float64            `json:"wall_seconds"`
}

// Formats lists the table formats Write accepts.
var Formats = []string{"md", "csv", "json"}

// metricOrder puts the well-known metrics first.
var metricOrder = []string{"best_of_k", "any_at_b", "top1", "em", "f1"}

func metricColumns(rows []Row) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Metrics {
			seen[k] = true
		}
	}
	var cols []string
	for _, k := range metricOrder {
		if seen[k] {
			cols = append(cols, k)
			delete(seen, k)
		}
	}
	var rest []string
	for k := range seen {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	return append(cols, rest...)
}

func modelLabel(r Row) string {
	if r.Simulated {
		return r.Model + " (simulated)"
	}
	return r.Model
}

// cells lays out header and body as text.
func cells(rows []Row) ([]string, [][]string) {
	mcols := metricColumns(rows)
	header := []string{"run", "task", "strategy", "params", "model", "n", "accuracy"}
	header = append(header, mcols...)
	header = append(header, "tokens", "calls", "wall_s")
	var body [][]string
	for _, r := range rows {
		line := []string{fmt.Sprint(r.RunID), r.Task, r.Strategy, r.Params, modelLabel(r), fmt.Sprint(r.N), fmt.Sprintf("%.3f", r.Accuracy)}
		for _, m := range mcols {
			if v, ok := r.Metrics[m]; ok {
				line = append(line, fmt.Sprintf("%.3f", v))
			} else {
				line = append(line, "")
			}
		}
		line = append(line, fmt.Sprint(r.Tokens), fmt.Sprint(r.Calls), fmt.Sprintf("%.1f", r.WallSeconds))
		if r.Status != "done" {
			line[2] += " [" + r.Status + "]"
		}
		body = append(body, line)
	}
	return header, body
}

// Write renders rows in the given format.
func Write(w io.Writer, format string, rows []Row) error {
	switch format {
	case "md":
		return writeMarkdown(w, rows)
	case "csv":
		header, body := cells(rows)
		cw := csv.NewWriter(w)
		return cw.WriteAll(append([][]string{header}, body...))
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if rows == nil {
			rows = []Row{}
		}
		return enc.Encode(rows)
	}
	return fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

func writeMarkdown(w io.Writer, rows []Row) error {
	header, body := cells(rows)
	align := make([]tw.Align, len(header))
	for i, h := range header {
		align[i] = tw.AlignRight
		switch h {
		case "task", "strategy", "params", "model":
			align[i] = tw.AlignLeft
		}
	}
	for _, line := range body {
		for i := range line {
			line[i] = strings.ReplaceAll(line[i], "|", `\|`)
		}
	}
	tb := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	tb.Header(hdr...)
	if err := tb.Bulk(body); err != nil {
		return err
	}
	return tb.Render()
}
