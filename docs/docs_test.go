// Package docs holds the documentation's checks: the index links every
// page, relative links resolve, and the README's tour runs as written.
package docs

import (
	"bufio"
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
