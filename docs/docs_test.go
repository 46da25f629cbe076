// Package docs holds the documentation's checks: the index links every
// page, relative links resolve, the Go files the pages name exist, and the
// README's tour runs as written.
package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// linkRe finds Markdown link and image targets.
var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func links(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range linkRe.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestIndexLinksEveryPage: every file in docs/ but the index and this
// package's Go files is linked from docs/README.md.
func TestIndexLinksEveryPage(t *testing.T) {
	linked := map[string]bool{}
	for _, l := range links(t, "README.md") {
		l, _, _ = strings.Cut(l, "#")
		linked[filepath.Clean(l)] = true
	}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || name == "README.md" || strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") {
			continue
		}
		if !linked[name] {
			t.Errorf("docs/%s is not linked from docs/README.md: add a line with [title](%s) to the index", name, name)
		}
	}
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(strings.TrimLeft(h, "#")))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127 && r != '—' && r != '–' && r != '’' && r != '≤':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the heading anchors of a Markdown file, outside code blocks.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := map[string]bool{}
	seen := map[string]int{}
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		s := slug(line)
		if n := seen[s]; n > 0 {
			a[s+"-"+strconv.Itoa(n)] = true
		} else {
			a[s] = true
		}
		seen[s]++
	}
	return a
}

// TestRelativeLinksResolve: every relative link in README.md and docs/*.md
// names a file that exists and, for a Markdown file, a heading it has.
func TestRelativeLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"))
	for _, page := range pages {
		for _, l := range links(t, page) {
			if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(l, "#")
			file := page
			if target != "" {
				file = filepath.Join(filepath.Dir(page), target)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s links to %s, which does not exist", page, l)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchors(t, file)[anchor] {
				t.Errorf("%s links to %s: %s has no heading with anchor #%s", page, l, file, anchor)
			}
		}
	}
}

// codeSpans returns Markdown text's inline code spans: outside fenced
// blocks, a run of n backticks opens a span that the next run of exactly
// n closes within the same paragraph (an unclosed run is literal).
func codeSpans(text string) []string {
	var spans []string
	var para []string
	flush := func() {
		p := strings.Join(para, "\n")
		para = para[:0]
		for i, n := backticks(p, 0); i >= 0; {
			j, m := backticks(p, i+n)
			for j >= 0 && m != n {
				j, m = backticks(p, j+m)
			}
			if j < 0 { // unclosed: literal
				i, n = backticks(p, i+n)
				continue
			}
			spans = append(spans, p[i+n:j])
			i, n = backticks(p, j+m)
		}
	}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			flush()
			fence = !fence
			continue
		}
		switch {
		case fence:
		case strings.TrimSpace(line) == "":
			flush()
		default:
			para = append(para, line)
		}
	}
	flush()
	return spans
}

// backticks finds the first run of backticks in p from i on: where it
// starts and how long it is (-1 where there is none).
func backticks(p string, i int) (start, n int) {
	start = strings.IndexByte(p[i:], '`')
	if start < 0 {
		return -1, 0
	}
	start += i
	for start+n < len(p) && p[start+n] == '`' {
		n++
	}
	return start, n
}

// goFileRe finds the Go files a code span names: a path from the module
// root (bench/run.go) or a bare file name (registry.go), maybe with a line
// (lats.go:108).
var goFileRe = regexp.MustCompile(`([\w./-]*\w\.go)(?:[^\w.]|$)`)

// TestGoFilesNamedExist: every Go file that README.md or a page of docs/
// names in a code span exists, a path from the module root as it is and a
// bare name somewhere in the module, so a page naming a file that was
// moved, renamed or never written fails here.
func TestGoFilesNamedExist(t *testing.T) {
	root := ".."
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") {
			names[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, span := range codeSpans(string(b)) {
			if strings.Contains(span, "://") {
				continue // a URL names another site's files
			}
			for _, m := range goFileRe.FindAllStringSubmatch(span, -1) {
				name := m[1]
				checked++
				if !strings.Contains(name, "/") {
					if !names[name] {
						t.Errorf("%s names `%s`: no Go file of that name in the module", page, name)
					}
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil {
					t.Errorf("%s names `%s`, which does not exist: name the file where it is now (a path from the module root)", page, name)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no Go file named in any page: the check reads nothing")
	}
}

func TestCodeSpans(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"a `x.go` and `y`", []string{"x.go", "y"}},
		{"a ```` ```python ```` block", []string{" ```python "}},
		{"quoted between ``` marks, then\n\nagain ``` marks and `z.go`", []string{"z.go"}},
		{"a span `across\nlines.go` here", []string{"across\nlines.go"}},
		{"```go\nfoo(`a.go`)\n```\nafter `b.go`", []string{"b.go"}},
		{"an unclosed `` run, then `c.go`", []string{"c.go"}},
		{"`a ``b`` c` only closes on a run of one", []string{"a ``b`` c"}},
	} {
		if got := codeSpans(c.text); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("codeSpans(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
