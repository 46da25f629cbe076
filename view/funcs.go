package view

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
)

var funcs = template.FuncMap{
	"pct": func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"f3":  func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"f1":  func(v float64) string { return fmt.Sprintf("%.1f", v) },
	// wall is a run's wall time; a running run's time so far, marked.
	"wall": func(r store.Run) string {
		if r.Status == store.StatusRunning && !r.StartedAt.IsZero() {
			return fmt.Sprintf("%.1f so far", time.Since(r.StartedAt).Seconds())
		}
		return fmt.Sprintf("%.1f", r.WallSeconds)
	},
	"cost": func(v float64) string { return fmt.Sprintf("$%.4f", v) },
	"ms":   func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) },
	"add":  func(a, b int) int { return a + b },
	"trunc": func(n int, s string) string {
		if len([]rune(s)) <= n {
			return s
		}
		return string([]rune(s)[:n]) + "…"
	},
	"oneline": func(s string) string { return strings.Join(strings.Fields(s), " ") },
	"model": func(r store.Run) string {
		if r.Simulated {
			return r.Model + " (simulated)"
		}
		return r.Model
	},
	"lastline": lastLine,
	// breakable lets a column header (sample_accuracy, tokens/item) wrap
	// after its _ and /, which a browser does not break at.
	"breakable": func(s string) template.HTML {
		e := template.HTMLEscapeString(s)
		return template.HTML(strings.NewReplacer("_", "_<wbr>", "/", "/<wbr>").Replace(e))
	},
	// multiline keeps code (a HumanEval function) in a <pre>, not one line.
	"multiline": func(s string) bool { return strings.Contains(s, "\n") },
	"deref": func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	},
	"tokens": func(it store.Item) int { return it.PromptTokens + it.CompletionTokens },
	// part marks a score between 0 and 1 (results.PartScore), which a
	// right or wrong badge would misreport.
	"part": results.PartScore,
	// forgeableNote explains the mark of a forgeable scoring rule.
	"forgeableNote": func() string { return render.ForgeableNote },
}
