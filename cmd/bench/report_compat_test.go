package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/reasonbench/reasonbench/report"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Output formats issue 20 changed on purpose; TestMigratedDatabaseReportsAsBefore
// compares what remains of the old build's output through these:
//   - export lines gained gold, answer and (CoT-SC) samples;
//   - bench show prints metrics as name=value (not Go's map syntax) and
//     the gold and extracted answers;
//   - report --format json writes params_json/sim_params as JSON and
//     numbers without float noise.
// Everything else must still be byte for byte (export, show) or value for
// value (report json) what the old build printed.

// sameAsOld reports whether out matches the old build's want for golden.
func sameAsOld(golden, out, want string) bool {
	switch {
	case strings.HasPrefix(golden, "export_"):
		return sameJSONLines(out, want, map[string]bool{"gold": true, "answer": true, "samples": true})
	case strings.HasPrefix(golden, "show_"):
		return dropNewShowLines(out) == oldMetricsToNew(want)
	case golden == "report.json":
		return sameJSONLines(out, want, nil)
	case golden == "report.md":
		return mdCells(out) == mdCells(oldCountsToNew(want))
	case golden == "report.csv":
		return out == oldCountsToNew(want)
	}
	return out == want
}

// oldCountsToNew rewrites an old table's count metrics (iterations,
// trials, states: per-item means of counts) the way tables now print them,
// report.MetricText ("1.750" is now "1.75"), a deliberate format change;
// every other cell is compared as it was.
func oldCountsToNew(table string) string {
	lines := strings.Split(table, "\n")
	if len(lines) == 0 {
		return table
	}
	sep := ","
	if strings.HasPrefix(lines[0], "|") {
		sep = "|"
	}
	header := strings.Split(lines[0], sep)
	for i, line := range lines[1:] {
		cells := strings.Split(line, sep)
		if len(cells) != len(header) {
			continue
		}
		for j, cell := range cells {
			name := strings.TrimSpace(header[j])
			v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil || report.MetricText(name, v) == fmt.Sprintf("%.3f", v) {
				continue
			}
			cells[j] = report.MetricText(name, v)
		}
		lines[i+1] = strings.Join(cells, sep)
	}
	return strings.Join(lines, "\n")
}

// sameJSONLines compares JSON documents (one per line, or one indented
// document) after dropping the added top-level keys from got, parsing
// params_json/sim_params text, and rounding numbers to 12 digits.
func sameJSONLines(got, want string, added map[string]bool) bool {
	dg, dw := json.NewDecoder(strings.NewReader(got)), json.NewDecoder(strings.NewReader(want))
	dg.UseNumber()
	dw.UseNumber()
	for {
		var g, w any
		eg, ew := dg.Decode(&g), dw.Decode(&w)
		if eg != nil || ew != nil {
			return eg != nil && ew != nil // both at the end
		}
		if m, ok := g.(map[string]any); ok {
			for k := range added {
				delete(m, k)
			}
		}
		if !reflect.DeepEqual(normJSON(g, ""), normJSON(w, "")) {
			return false
		}
	}
}

func normJSON(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normJSON(e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normJSON(e, "")
		}
		return out
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return strconv.FormatFloat(f, 'g', 12, 64)
	case string:
		if key == "params_json" || key == "sim_params" {
			var inner any
			d := json.NewDecoder(bytes.NewReader([]byte(x)))
			d.UseNumber()
			if d.Decode(&inner) == nil {
				return normJSON(inner, "")
			}
		}
	}
	return v
}

func dropNewShowLines(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "gold: ") || strings.HasPrefix(l, "extracted answer: ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}

var goMap = regexp.MustCompile(`metrics: map\[([^\]]*)\]`)

// oldMetricsToNew rewrites the old "metrics: map[a:1 b:2]" as "a=1 b=2".
func oldMetricsToNew(s string) string {
	return goMap.ReplaceAllStringFunc(s, func(m string) string {
		inner := goMap.FindStringSubmatch(m)[1]
		if inner == "" {
			return "metrics: none"
		}
		parts := strings.Fields(inner)
		for i, p := range parts {
			parts[i] = strings.Replace(p, ":", "=", 1)
		}
		return "metrics: " + strings.Join(parts, " ")
	})
}

// mdCells is a Markdown table with each cell trimmed and the alignment
// row's dashes shortened: what it says, whatever its columns' widths.
func mdCells(table string) string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		for i, c := range cells {
			c = strings.TrimSpace(c)
			if strings.Trim(c, ":-") == "" && strings.Contains(c, "-") {
				c = strings.Replace(strings.Trim(c, "-"), "::", ":-:", 1)
				c = strings.ReplaceAll(c, ":", ":") + "-"
			}
			cells[i] = c
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return strings.Join(out, "\n")
}
