package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/stats"
)

// Issue 43 part 5's figures as the tables print them.

// pairedGroups are a 0/1 baseline, a configuration compared by McNemar and
// one whose items score in between (io k=100), compared by the paired t:
// higher on 56 items, lower on 44, 0.258 lower on the mean.
func pairedGroups() []Group {
	mcnemar := &Comparison{Label: "tot b=1", Comparison: stats.Comparison{N: 100, Difference: 0.39, Test: stats.NameMcNemar,
		CIMethod: stats.MethodNewcombe, RunOnly: 48, BaselineOnly: 9}, Wins: 48, Losses: 9}
	pairedT := &Comparison{Label: "io k=100", Comparison: stats.Comparison{N: 100, Difference: -0.258, Test: stats.NamePairedT,
		CIMethod: stats.MethodPairedT, RunOnly: 56, BaselineOnly: 44, SD: 0.4}, Wins: 10.14, Losses: 35.94}
	return []Group{
		{Strategy: "cotsc", Params: "k=100", Runs: []Row{{}}, IsBaseline: true},
		{Strategy: "tot", Params: "b=1", Runs: []Row{{}}, VsBaseline: mcnemar},
		{Strategy: "io", Params: "k=100", Runs: []Row{{}}, VsBaseline: pairedT},
	}
}

// notesOf splits a Markdown table from its notes: the header line and the
// notes after the blank line.
func notesOf(md string) (header, notes string) {
	header, rest, _ := strings.Cut(md, "\n")
	_, notes, _ = strings.Cut(rest, "\n\n")
	return header, notes
}

// mdCells are the trimmed cells of a Markdown table.
func mdCells(md string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		for _, c := range strings.Split(line, "|") {
			out[strings.TrimSpace(c)] = true
		}
	}
	return out
}

// TestWinsLossesCells: wins/losses print the discordant items of a 0/1
// comparison and the score gained and lost of a paired-t one (10.1/35.9,
// not 56/44 against a difference of -0.258), in the experiment table and
// the comparison table; the notes name the columns each table has and
// no other.
func TestWinsLossesCells(t *testing.T) {
	groups := pairedGroups()
	var exp bytes.Buffer
	if err := WriteExperiment(&exp, "md", "t", groups); err != nil {
		t.Fatal(err)
	}
	var cmp bytes.Buffer
	cs := []Comparison{*groups[1].VsBaseline, *groups[2].VsBaseline}
	if err := WriteComparisons(&cmp, "md", cs); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		md   string
		want []string
	}{
		"experiment": {exp.String(), []string{"48/9", "10.1/35.9"}},
		"compare":    {cmp.String(), []string{"48", "9", "10.1", "35.9"}},
	} {
		cells := mdCells(c.md)
		for _, w := range c.want {
			if !cells[w] {
				t.Errorf("%s: no cell %q:\n%s", name, w, c.md)
			}
		}
		if cells["56/44"] || cells["56"] || cells["44"] {
			t.Errorf("%s: counts of items higher and lower shown as wins and losses:\n%s", name, c.md)
		}
		header, notes := notesOf(c.md)
		for _, col := range []string{"run only", "baseline only", "wins", "losses"} {
			if strings.Contains(notes, col) && !strings.Contains(header, col) {
				t.Errorf("%s: the notes name %q, a column the table lacks:\n%s", name, col, c.md)
			}
		}
		for _, w := range []string{"the items only it, or only the baseline, got right (N)", "wins - losses = n * difference"} {
			if !strings.Contains(notes, w) {
				t.Errorf("%s: notes lack %q:\n%s", name, w, notes)
			}
		}
	}
	var csv bytes.Buffer
	if err := WriteComparisons(&csv, "csv", cs); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, csv.Bytes())
	if got := column(t, rows[0], rows[2], "wins") + "/" + column(t, rows[0], rows[2], "losses"); got != "10.14/35.94" {
		t.Errorf("csv wins/losses %q", got)
	}
	if got := column(t, rows[0], rows[2], "run_only"); got != "56" {
		t.Errorf("csv run_only %q: the counts stay", got)
	}
}

// TestForgeableRuleMarked: the rule cell of a run (or configuration)
// scored by a forgeable rule is marked, in Markdown, LaTeX and CSV, and
// the note says what it means; other rows are not marked.
func TestForgeableRuleMarked(t *testing.T) {
	rows := []Row{{RunID: 1, Rule: "humaneval/reference", RuleForgeable: true, N: 2}, {RunID: 2, Rule: "humaneval/isolated", N: 2}}
	for _, format := range []string{"md", "latex", "csv"} {
		var b bytes.Buffer
		if err := Write(&b, format, rows); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		if !strings.Contains(s, "humaneval/reference (FORGEABLE)") || strings.Contains(s, "humaneval/isolated (FORGEABLE)") {
			t.Errorf("%s: rule cells:\n%s", format, s)
		}
		if format == "md" && !strings.Contains(s, "- "+ForgeableNote) {
			t.Errorf("md: no note:\n%s", s)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, "md", rows[1:]); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "FORGEABLE") {
		t.Errorf("an isolated run's table marked:\n%s", b.String())
	}
	for _, format := range []string{"md", "csv"} {
		b.Reset()
		if err := WriteExperiment(&b, format, "t", Pivot(rows, Level)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "humaneval/reference (FORGEABLE)") || strings.Contains(b.String(), "humaneval/isolated (FORGEABLE)") ||
			(format == "md" && !strings.Contains(b.String(), ForgeableNote)) {
			t.Errorf("experiment %s:\n%s", format, b.String())
		}
	}
}
