package qa

import (
	"context"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tasks/prose"
)

// The docstore of a row's context, for ReAct and LATS: HotpotQA's local
// docstore and its search, lookup and finish tools over the row's
// paragraphs, a page per paragraph titled with its title or "Paragraph N".
// The search tool's description lists the titles (so a model can open
// untitled paragraphs), and a search that names no title opens the page
// whose words overlap the query most.

// maxListedTitles bounds the titles the search tool's description lists.
const maxListedTitles = 30

// Tools returns search, lookup and finish over a fresh docstore of the
// row's paragraphs.
func (t *ContextTask) Tools(inst tasks.Instance) ([]tasks.Tool, error) {
	paras := docParagraphs(rowOf(inst).Context)
	ds := &searchStore{local: hotpotqa.NewLocalDocstore(paras), paras: paras}
	h := &hotpotqa.Task{NewDocstore: func(hotpotqa.Question) hotpotqa.Docstore { return ds }}
	tools, err := h.Tools(tasks.Instance{Index: inst.Index, Data: hotpotqa.Question{Context: paras}})
	if err != nil {
		return nil, err
	}
	titles := make([]string, 0, len(paras))
	for i, p := range paras {
		if i == maxListedTitles {
			titles = append(titles, fmt.Sprintf("and %d more", len(paras)-i))
			break
		}
		titles = append(titles, p.Title)
	}
	for i := range tools {
		if tools[i].Name == hotpotqa.ToolSearch {
			tools[i].Description = "Open a page by its title (the pages are: " + strings.Join(titles, "; ") +
				"); a search that names no title opens the page sharing most words with it."
		}
	}
	return tools, nil
}

// docParagraphs makes a page of every paragraph, split into sentences.
func docParagraphs(ctx []Paragraph) []hotpotqa.Paragraph {
	out := make([]hotpotqa.Paragraph, len(ctx))
	for i := range ctx {
		out[i] = hotpotqa.Paragraph{Title: pageTitle(ctx, i), Sentences: prose.Sentences(strings.TrimSpace(ctx[i].Text))}
	}
	return out
}

// searchStore is HotpotQA's local docstore with a search by content when
// no title matches.
type searchStore struct {
	local *hotpotqa.LocalDocstore
	paras []hotpotqa.Paragraph
}

func (s *searchStore) Search(ctx context.Context, entity string) (string, error) {
	obs, err := s.local.Search(ctx, entity)
	if err != nil || !strings.HasPrefix(obs, "Could not find") {
		return obs, err
	}
	i := bestOverlap(s.paras, entity)
	if i < 0 {
		return obs, nil
	}
	page, err := s.local.Search(ctx, s.paras[i].Title)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("No page is titled %s; the closest page is %s: %s", truncate(strings.TrimSpace(entity), 200), s.paras[i].Title, page), nil
}

func (s *searchStore) Lookup(ctx context.Context, keyword string) (string, error) {
	return s.local.Lookup(ctx, keyword)
}

// bestOverlap is the paragraph sharing the most distinct normalised words
// with query (first on ties), or -1 when none shares any.
func bestOverlap(paras []hotpotqa.Paragraph, query string) int {
	want := map[string]bool{}
	for _, w := range strings.Fields(hotpotqa.Normalize(query)) {
		if !prose.IsStopword(w) {
			want[w] = true
		}
	}
	best, bestN := -1, 0
	for i, p := range paras {
		seen := map[string]bool{}
		for _, w := range strings.Fields(hotpotqa.Normalize(p.Title + " " + p.Text())) {
			if want[w] {
				seen[w] = true
			}
		}
		if len(seen) > bestN {
			best, bestN = i, len(seen)
		}
	}
	return best
}
