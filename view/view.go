// Package view serves bench view: a read-only web viewer over a reasonbench
// database (runs, run pages with tables and plots, items with their trees,
// trajectories, trials and calls, and comparisons). Templates and assets are
// embedded; the store must be opened with store.OpenReadOnly.
package view

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log"
	"net/http"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Server serves the viewer's pages over one store.
type Server struct {
	st   *store.Store
	tmpl *template.Template
	mux  *http.ServeMux
}

// New returns the viewer's handler over st.
func New(st *store.Store) (*Server, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("view templates: %w", err)
	}
	s := &Server{st: st, tmpl: t, mux: http.NewServeMux()}
	assets, _ := fs.Sub(assetFS, "assets")
	s.mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	s.mux.HandleFunc("GET /{$}", s.handle(s.runs))
	s.mux.HandleFunc("GET /runs/{id}", s.handle(s.run))
	s.mux.HandleFunc("GET /runs/{id}/items/{idx}", s.handle(s.item))
	s.mux.HandleFunc("GET /runs/{id}/progress", s.progress)
	s.mux.HandleFunc("GET /compare", s.handle(s.compare))
	s.mux.HandleFunc("GET /experiments/{name}", s.handle(s.experiment))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, notFound("no page at "+r.URL.Path))
	})
	return s, nil
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// page is what a handler returns: a template and its data.
type page struct {
	name  string
	title string
	data  any
}

// httpError is an error with a status the user sees.
type httpError struct {
	status int
	msg    string
}

func (e httpError) Error() string { return e.msg }

func notFound(msg string) error   { return httpError{http.StatusNotFound, msg} }
func badRequest(msg string) error { return httpError{http.StatusBadRequest, msg} }

func (s *Server) handle(h func(ctx context.Context, r *http.Request) (page, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := h(r.Context(), r)
		if err != nil {
			s.fail(w, err)
			return
		}
		s.render(w, http.StatusOK, p)
	}
}

func (s *Server) render(w http.ResponseWriter, status int, p page) {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, p.name, map[string]any{"Title": p.title, "D": p.data}); err != nil {
		log.Printf("bench view: render %s: %v", p.name, err)
		http.Error(w, "internal error rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var he httpError
	switch {
	case errors.As(err, &he):
		status = he.status
	case errors.Is(err, store.ErrNotFound):
		status = http.StatusNotFound
	}
	s.render(w, status, page{name: "error.html", title: http.StatusText(status),
		data: map[string]any{"Status": status, "Text": http.StatusText(status), "Msg": err.Error()}})
}

// runID reads the {id} path value.
func (s *Server) runID(ctx context.Context, r *http.Request) (store.Run, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return store.Run{}, notFound(fmt.Sprintf("run %q: not a run id", r.PathValue("id")))
	}
	return s.st.GetRun(ctx, id)
}
