package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
)

// progressBar draws one status line on a terminal; elsewhere it stays quiet
// so logs and pipes get no carriage returns. Until the first item ends
// (start) it says what the run waits for: from the start on a terminal, in
// a log once it has waited a while.
type progressBar struct {
	w     io.Writer
	tty   bool
	tick  time.Duration // how often a terminal's waiting line is redrawn
	quiet time.Duration // how long a log waits before saying what for

	mu      sync.Mutex
	drawn   bool
	width   int // of the line last drawn on a terminal
	last    time.Time
	waiting chan struct{} // open from start until the first item ends
}

func newProgressBar(w io.Writer) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty, tick: time.Second, quiet: 10 * time.Second}
}

// start shows, until the first item ends, that the run waits for the
// first answer from endpoint ("" for the in-process simulator): a hung
// endpoint gives no progress for as long as its timeout. A terminal gets
// the line at once, redrawn every tick; a log gets it after quiet, and
// again each time the wait doubles (not for the simulator, which cannot
// hang on a network).
func (b *progressBar) start(endpoint string) {
	what := "the first item"
	if endpoint != "" {
		what = "the first answer from " + llm.PublicURL(endpoint)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting != nil {
		return
	}
	stop := make(chan struct{})
	b.waiting = stop
	begun := time.Now()
	line := func() string {
		return fmt.Sprintf("waiting for %s (%s)", what, time.Since(begun).Round(time.Second))
	}
	if b.tty {
		b.draw(line())
	} else if endpoint == "" {
		return
	}
	go func() {
		t := time.NewTicker(b.tick)
		defer t.Stop()
		next := b.quiet
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			b.mu.Lock()
			select {
			case <-stop: // the first item ended while this tick waited
			default:
				if b.tty {
					b.draw(line())
				} else if time.Since(begun) >= next {
					fmt.Fprintf(b.w, "bench: %s\n", line())
					next *= 2
				}
			}
			b.mu.Unlock()
		}
	}()
}

// stopWaiting ends start's line; b.mu is held.
func (b *progressBar) stopWaiting() {
	if b.waiting != nil {
		close(b.waiting)
		b.waiting = nil
	}
}

// draw writes line over the terminal's last one; b.mu is held.
func (b *progressBar) draw(line string) {
	pad := max(b.width-len(line), 0)
	fmt.Fprintf(b.w, "\r%s%s", line, strings.Repeat(" ", pad))
	b.width = len(line)
	b.drawn = true
}

func (b *progressBar) update(p bench.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopWaiting()
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
	b.draw(fmt.Sprintf("[%s%s] %d/%d acc %.3f tokens %d calls %d%s%s ETA %s ",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.Done, p.Total, p.Accuracy,
		p.PromptTokens+p.CompletionTokens, p.Calls, limit, replicaLine(p.Replicas), eta))
}

func (b *progressBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopWaiting()
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn, b.width = false, 0
	}
}

// warnToolFailures says that a run's score counts items whose MCP server
// failed them (a crash, a timeout), which a run's status does not show.
func warnToolFailures(w io.Writer, sums ...bench.Summary) {
	for _, s := range sums {
		if s.ToolFailures > 0 {
			fmt.Fprintf(w, "warning: run %d: %d tool calls failed because their MCP server crashed, gave no answer in time or broke the connection (tool_failures); "+
				"their items are scored on what the model made of the error (bench report --by tool --db ... shows each tool's errors)\n", s.RunID, s.ToolFailures)
		}
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
