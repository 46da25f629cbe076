package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/reasonbench/reasonbench/render"
	"reflect"
	"regexp"
	"slices"
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
		return sameJSONLines(out, oldCallIDsToNumbers(want), map[string]bool{"gold": true, "answer": true, "samples": true})
	case strings.HasPrefix(golden, "show_"):
		return dropNewShowLines(out) == oldMetricsToNew(want)
	case golden == "report.json":
		out, want = newIntervalsJSON(out, want)
		return sameJSONLines(out, want, nil)
	case golden == "report.md":
		out, want = newIntervalsMD(out, oldCountsToNew(want))
		return mdCells(out) == mdCells(want)
	case golden == "report.csv":
		out, want = newIntervalsCSV(out, oldCountsToNew(want))
		return out == want
	}
	return out == want
}

// oldCallIDsToNumbers rewrites an old export's calls' ids (the store's
// record ids) as the export now numbers them, a deliberate change: 1, 2,
// ... in the item, in the order the old build already listed them (their
// identities'). Every other value is compared as it was.
func oldCallIDsToNumbers(export string) string {
	var b strings.Builder
	dec := json.NewDecoder(strings.NewReader(export))
	dec.UseNumber()
	for {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			return b.String()
		}
		if calls, ok := line["calls"].([]any); ok {
			for i, c := range calls {
				if call, ok := c.(map[string]any); ok {
					call["id"] = json.Number(strconv.Itoa(i + 1))
				}
			}
		}
		out, _ := json.Marshal(line)
		b.Write(out)
		b.WriteByte('\n')
	}
}

// oldCountsToNew rewrites an old table's count metrics (iterations,
// trials, states: per-item means of counts) the way tables now print them,
// render.MetricText ("1.750" is now "1.75"), a deliberate format change;
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
			if err != nil || render.MetricText(name, v) == fmt.Sprintf("%.3f", v) {
				continue
			}
			cells[j] = render.MetricText(name, v)
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

// dropNewShowLines drops what bench show prints that the old build did
// not: the gold and extracted answers, the item's conversation.
func dropNewShowLines(s string) string {
	var keep []string
	skipping := false
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "gold: ") || strings.HasPrefix(l, "extracted answer: ") {
			continue
		}
		// The conversation block (with the blank line before it) is new.
		if l == "conversation:\n" && len(keep) > 0 && keep[len(keep)-1] == "\n" {
			keep, skipping = keep[:len(keep)-1], true
			continue
		}
		if skipping && l != "\n" && l != "" {
			continue
		}
		skipping = false
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

// Issue 32 changed on purpose a run's interval where its items score
// between 0 and 1 (io/cot k>1): Student-t over the items, not Wilson on
// accuracy·n, the column naming it. newIntervals* mask exactly those rows'
// interval cells on both sides (a row the new build calls Wilson must
// still match) and drop what was added: the ci_method column, the interval
// name in the header and cells, the accuracy legend, score_kind and item_sd.

// newIntervalsCSV masks a CSV table's t rows (by its ci_method column).
func newIntervalsCSV(out, want string) (string, string) {
	o, w := strings.Split(out, "\n"), strings.Split(want, "\n")
	head := strings.Split(o[0], ",")
	m, lo := slices.Index(head, "ci_method"), slices.Index(head, "ci_low")
	if m < 0 || lo < 0 {
		return out, want
	}
	for i, line := range o {
		cells := strings.Split(line, ",")
		if len(cells) != len(head) {
			continue
		}
		if i > 0 && cells[m] != render.MethodWilson && i < len(w) {
			cells[lo], cells[lo+1] = "*", "*"
			wc := strings.Split(w[i], ",")
			if len(wc) > lo+1 {
				wc[lo], wc[lo+1] = "*", "*"
				w[i] = strings.Join(wc, ",")
			}
		}
		o[i] = strings.Join(slices.Delete(cells, m, m+1), ",")
	}
	return strings.Join(o, "\n"), strings.Join(w, "\n")
}

// newIntervalsMD masks a Markdown table's t rows (cells named "t").
func newIntervalsMD(out, want string) (string, string) {
	o, w := strings.Split(out, "\n"), strings.Split(want, "\n")
	var keep []string
	col := -1
	for i, line := range o {
		if strings.HasPrefix(line, "- "+render.AccuracyMeanNote) || strings.HasPrefix(line, "- "+render.AccuracyVoteNote) || strings.HasPrefix(line, "- "+render.ColumnsNote) {
			continue
		}
		cells := strings.Split(line, "|")
		if col < 0 {
			col = slices.IndexFunc(cells, func(c string) bool { return strings.HasPrefix(strings.TrimSpace(c), "95% CI") })
			if col >= 0 {
				cells[col] = "95% CI (Wilson)"
			}
		} else if col < len(cells) {
			c := strings.TrimSpace(cells[col])
			switch {
			case strings.HasSuffix(c, "] t"):
				cells[col] = "*"
				if i < len(w) {
					if wc := strings.Split(w[i], "|"); col < len(wc) {
						wc[col] = "*"
						w[i] = strings.Join(wc, "|")
					}
				}
			case strings.HasSuffix(c, "] Wilson"):
				cells[col] = strings.TrimSuffix(c, " Wilson")
			}
		}
		keep = append(keep, strings.Join(cells, "|"))
	}
	// The legend's blank line goes with it.
	return strings.TrimRight(strings.Join(keep, "\n"), "\n") + "\n", strings.TrimRight(strings.Join(w, "\n"), "\n") + "\n"
}

// newIntervalsJSON drops score_kind and item_sd, and the ci of rows whose
// scores are means, on both sides.
func newIntervalsJSON(out, want string) (string, string) {
	var o, w []map[string]any
	if json.Unmarshal([]byte(out), &o) != nil || json.Unmarshal([]byte(want), &w) != nil || len(o) != len(w) {
		return out, want
	}
	for i := range o {
		if o[i]["score_kind"] == render.ScoreMean {
			delete(o[i], "ci")
			delete(w[i], "ci")
		}
		delete(o[i], "score_kind")
		delete(o[i], "item_sd")
	}
	ob, _ := json.Marshal(o)
	wb, _ := json.Marshal(w)
	return string(ob), string(wb)
}
