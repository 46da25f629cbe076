package view

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/reasonbench/reasonbench/store"
)

// findChromium returns a Chromium (or Chrome) binary, or "".
func findChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestBrowser drives a real headless Chromium through the viewer: the runs
// page, a ToT item (collapse, expand, click a node), a Reflexion item and a
// comparison chosen with the runs page's checkboxes. Screenshots go to
// view/screenshots (git-ignored); with BENCH_VIEW_DOCS=DIR the two README
// screenshots are written there too (make screenshots).
func TestBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" && os.Getenv("BENCH_REQUIRE_BROWSER") != "" {
		t.Fatal("BENCH_REQUIRE_BROWSER is set and no Chromium was found: run scripts/install-chromium.sh")
	}
	if bin == "" {
		t.Skip("no Chromium found (looked for chromium, chromium-browser, google-chrome; set CHROMIUM): run scripts/install-chromium.sh")
	}
	srv, f := server(t)
	shots := "screenshots"
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	docs := os.Getenv("BENCH_VIEW_DOCS")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	do := func(steps ...chromedp.Action[chromedp.Void]) { t.Helper(); must(chromedp.Do(bctx, steps...)) }
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel)))
		must(err)
		return s
	}
	evalBool := func(expr string) bool {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[bool](expr))
		must(err)
		return v
	}
	evalInt := func(expr string) int {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Evaluate[int](expr))
		must(err)
		return v
	}
	shot := func(name string) {
		t.Helper()
		buf, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		must(err)
		must(os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644))
		if docs != "" && (name == "view-tot" || name == "view-compare") {
			must(os.WriteFile(filepath.Join(docs, name+".png"), buf, 0o644))
		}
	}
	id := func(s string) string { return formatInt(f.runs[s]) }

	// The runs page lists every run.
	do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")))
	runsText := text("#runs tbody")
	shot("runs")
	for _, s := range []string{"tot", "cotsc", "react", "reflexion", "selfrefine", "simulated"} {
		if !strings.Contains(runsText, s) {
			t.Errorf("runs page lacks %q:\n%s", s, runsText)
		}
	}

	// At 1400 px no table hides columns behind a horizontal scroll.
	overflow := `Array.from(document.querySelectorAll("table")).filter(t => t.scrollWidth > (t.parentElement.clientWidth + 1) || t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length`
	if n := evalInt(overflow); n != 0 {
		t.Errorf("runs page: %d tables wider than their container at 1400 px", n)
	}

	// The run page draws its report tables as HTML tables, not Markdown.
	do(chromedp.Navigate(srv.URL+"/runs/"+id("tot")), chromedp.WaitVisible(chromedp.CSS("table.report")))
	shot("run")
	if n := evalInt(`document.querySelectorAll("table.report").length`); n < 2 {
		t.Errorf("run page has %d report tables, want the row and the experiment table", n)
	}
	if evalBool(`Array.from(document.querySelectorAll("pre")).some(p => p.textContent.includes("|---") || p.textContent.includes("| ---"))`) {
		t.Error("run page still shows a Markdown table in a <pre>")
	}
	if n := evalInt(overflow); n != 0 {
		t.Errorf("run page: %d tables wider than their container at 1400 px", n)
	}
	// The experiment page's table (every configuration, paired columns
	// against the baseline) fits too.
	do(chromedp.Navigate(srv.URL+"/experiments/g24"), chromedp.WaitVisible(chromedp.CSS("table.exp")))
	shot("experiment")
	if n := evalInt(`document.querySelectorAll("table.exp tbody tr").length`); n < 3 {
		t.Errorf("experiment table has %d rows, want the game24 configurations", n)
	}
	if n := evalInt(overflow); n != 0 {
		w := evalInt(`document.querySelector("table.exp").scrollWidth`)
		t.Errorf("experiment page: %d tables wider than their container at 1400 px (table.exp %d px)", n, w)
	}

	// A HumanEval item: the extracted function keeps its lines and the
	// hidden tests stand where a gold answer would be.
	codeSrv, codeRun := codeServer(t)
	do(chromedp.Navigate(codeSrv.URL+"/runs/"+formatInt(codeRun)+"/items/0"), chromedp.WaitVisible(chromedp.CSS("#extracted pre")))
	shot("code-item")
	lines := evalInt(`document.querySelector("#extracted pre").innerText.trim().split("\n").length`)
	// Rendered height, not the text: a <pre> styled to collapse white space
	// would still hold the newlines.
	tall := evalBool(`(() => { const p = document.querySelector("#extracted pre"); return p.getBoundingClientRect().height > 4 * parseFloat(getComputedStyle(p).fontSize) })()`)
	if lines < 6 || !tall {
		t.Errorf("code item: extracted code in %d lines (tall %v), want the function's 6", lines, tall)
	}
	if tests := text("#tests"); !strings.Contains(tests, "def check(candidate):") {
		t.Errorf("code item: hidden tests %q", tests)
	}
	do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")))

	// A running run updates live: an item stored by another connection
	// shows up in its row without a reload.
	row := `#runs tr[data-id="` + id("running") + `"]`
	before, err := strconv.Atoi(text(row + " .n"))
	must(err)
	want := strconv.Itoa(before + 1)
	writer, err := store.Open(ctx, f.path)
	must(err)
	must(writer.PutItem(ctx, store.Item{RunID: f.runs["running"], Index: 900 + before, Input: "4 5 6 10", Correct: true, Score: 1}))
	must(writer.Close())
	var live string
	for deadline := time.Now().Add(6 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if live = text(row + " .n"); live == want {
			break
		}
	}
	if live != want || !strings.Contains(text(row+" .status"), "running ("+want+" items)") {
		t.Errorf("running run did not update live: n=%q status=%q", live, text(row+" .status"))
	}

	// A ToT item: collapse the root, expand it again, click a node on the
	// path to the answer.
	do(chromedp.Navigate(srv.URL+"/runs/"+id("tot")+"/items/900"), chromedp.WaitVisible(chromedp.CSS("ul.tree")))
	visible := `Array.from(document.querySelectorAll(".node")).filter(n => n.offsetParent !== null).length`
	all := evalInt(visible)
	do(chromedp.Click(chromedp.CSS("ul.tree > li > .node .tog")))
	collapsed := evalBool(`document.querySelector("ul.tree > li").classList.contains("collapsed")`)
	whenCollapsed := evalInt(visible)
	do(chromedp.Click(chromedp.CSS("ul.tree > li > .node .tog")))
	expanded := !evalBool(`document.querySelector("ul.tree > li").classList.contains("collapsed")`)
	whenExpanded := evalInt(visible)
	if !collapsed || !expanded || whenCollapsed != 1 || whenExpanded != all || all < 3 {
		t.Errorf("root toggle: collapsed=%v (%d nodes visible) then expanded=%v (%d of %d visible)",
			collapsed, whenCollapsed, expanded, whenExpanded, all)
	}
	do(chromedp.Click(chromedp.CSS("ul.tree ul ul .node.path .thought")))
	panel := text("#nodepanel")
	if !strings.Contains(panel, "Node ") || !strings.Contains(panel, "value") || !strings.Contains(panel, "#") {
		t.Errorf("node panel after a click = %q, want the node, its value and its calls", panel)
	}
	shot("view-tot")

	// A Reflexion item shows its trials side by side.
	do(chromedp.Navigate(srv.URL+"/runs/"+id("reflexion")+"/items/0"), chromedp.WaitVisible(chromedp.CSS(".trial")))
	trials := evalInt(`document.querySelectorAll(".trial").length`)
	trialText := text(".cols")
	shot("reflexion")
	if trials < 1 || !strings.Contains(trialText, "Trial 1") || !strings.Contains(trialText, "reflections in its prompt") {
		t.Errorf("reflexion item: %d trials, text %q", trials, trialText)
	}

	// A ReAct item with MCP tools, rerun: its trajectory, drawn from its
	// events, shows each tool call with its server, latency and replay.
	do(chromedp.Navigate(srv.URL+"/runs/"+id("mcp-rerun")+"/items/0"), chromedp.WaitVisible(chromedp.CSS("#trajectory")),
		chromedp.ScrollIntoView(chromedp.CSS("#trajectory")))
	toolCalls := evalInt(`document.querySelectorAll(".eventstep .step.tool").length`)
	toolText := strings.ToLower(text(".eventstep .step.tool")) // .kind is drawn in capitals
	shot("view-trajectory-tools")
	if toolCalls < 1 || !strings.Contains(toolText, "calc") || !strings.Contains(toolText, "get-sum") || !strings.Contains(toolText, " ms") ||
		!strings.Contains(toolText, "replayed") {
		t.Errorf("trajectory: %d tool calls, the first %q (want server, tool, latency, replayed)", toolCalls, toolText)
	}

	// A bon item: its candidates and their verifier scores.
	do(chromedp.Navigate(srv.URL+"/runs/"+id("bon")+"/items/0"), chromedp.WaitVisible(chromedp.CSS("#candidatetable")),
		chromedp.ScrollIntoView(chromedp.CSS("#candidates")))
	shot("view-bon-candidates")
	if n := evalInt(`document.querySelectorAll("#candidatetable tbody tr").length`); n != 4 {
		t.Errorf("bon item: %d candidate rows, want 4", n)
	}

	// Compare: tick two runs on the runs page and press Compare.
	do(chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#runs")),
		chromedp.Click(chromedp.CSS(`input.pick[value="`+id("tot")+`"]`)),
		chromedp.Click(chromedp.CSS(`input.pick[value="`+id("cot")+`"]`)),
		chromedp.Click(chromedp.ID("compare")),
		chromedp.WaitVisible(chromedp.CSS("#cmp")))
	loc, err := chromedp.Run(bctx, chromedp.Location())
	must(err)
	heading, table := text("h1"), text("#cmp")
	shot("view-compare")
	if !strings.Contains(loc, "/compare?runs=") || heading != "Compare runs" {
		t.Errorf("compare: at %s, heading %q", loc, heading)
	}
	if !strings.Contains(table, "run "+id("tot")+" · tot") || !strings.Contains(table, "correct") {
		t.Errorf("compare table lacks the runs or verdicts:\n%s", table)
	}
}
