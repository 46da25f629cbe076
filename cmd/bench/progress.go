package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
)

// progressBar draws one status line on a terminal; elsewhere it stays quiet
// so logs and pipes get no carriage returns.
type progressBar struct {
	w     io.Writer
	tty   bool
	drawn bool
	last  time.Time
}

func newProgressBar(w io.Writer) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty}
}

func (b *progressBar) update(p bench.Progress) {
	if !b.tty || (p.Done < p.Total && time.Since(b.last) < 100*time.Millisecond) {
		return
	}
	b.last = time.Now()
	const width = 24
	filled := width * p.Done / max(p.Total, 1)
	eta := "?"
	if p.Done > 0 {
		eta = (time.Duration(float64(p.Elapsed) / float64(p.Done) * float64(p.Total-p.Done))).Round(time.Second).String()
	}
	limit := ""
	if p.Limit > 0 {
		limit = fmt.Sprintf(" limit %d", p.Limit)
	}
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d acc %.3f tokens %d calls %d%s%s ETA %s ",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.Done, p.Total, p.Accuracy,
		p.PromptTokens+p.CompletionTokens, p.Calls, limit, replicaLine(p.Replicas), eta)
	b.drawn = true
}

func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}

// replicaLine is the calls each replica served, " replicas 412 398 0(aside)",
// in --base-url order.
func replicaLine(reps []llm.ReplicaStat) string {
	if len(reps) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(" replicas")
	for _, r := range reps {
		fmt.Fprintf(&sb, " %d", r.Served)
		if r.Aside {
			sb.WriteString("(aside)")
		}
	}
	return sb.String()
}
