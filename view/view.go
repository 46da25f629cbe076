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
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/runinfo"
	"github.com/reasonbench/reasonbench/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// Server serves the viewer's pages over one store.
type Server struct {
	st *store.Store
	// cat answers what the pages ask of the tasks and strategies a run
	// names (cmd/bench passes bench.Catalog).
	cat  runinfo.Catalog
	tmpl *template.Template
	mux  *http.ServeMux
	// hosts are the Host header names answered; nil answers any (--public).
	hosts map[string]bool
}

// MaxCompare is the most runs one comparison takes.
const MaxCompare = 64

// AllowHosts sets the host names a request's Host header may carry, beside
// localhost and the loopback addresses: the address the viewer serves.
// Others are refused, so a web page whose name resolves to 127.0.0.1 (DNS
// rebinding) cannot read the viewer. AnyHost lifts the check (--public).
func (s *Server) AllowHosts(hosts ...string) {
	s.hosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	for _, h := range hosts {
		s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
}

// AnyHost answers every Host header: for a viewer served on purpose beyond
// loopback (bench view --public), reached by names the viewer cannot know.
func (s *Server) AnyHost() { s.hosts = nil }

// New returns the viewer's handler over st, reading what a run names of
// tasks and strategies through cat.
func New(st *store.Store, cat runinfo.Catalog) (*Server, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("view templates: %w", err)
	}
	s := &Server{st: st, cat: cat, tmpl: t, mux: http.NewServeMux()}
	s.AllowHosts()
	assets, _ := fs.Sub(assetFS, "assets")
	files := http.StripPrefix("/assets/", http.FileServerFS(assets))
	s.mux.HandleFunc("GET /assets/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no listings
			s.fail(w, notFound("no page at "+r.URL.Path))
			return
		}
		files.ServeHTTP(w, r)
	})
	s.mux.HandleFunc("GET /{$}", s.handle(s.runs))
	s.mux.HandleFunc("GET /runs/{id}", s.handle(s.run))
	s.mux.HandleFunc("GET /runs/{id}/items/{idx}", s.handle(s.item))
	s.mux.HandleFunc("GET /runs/{id}/progress", s.progress)
	s.mux.HandleFunc("GET /compare", s.handle(s.compare))
	s.mux.HandleFunc("GET /experiments/{name...}", s.handle(s.experiment))
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, notFound("no page at "+r.URL.Path))
	})
	return s, nil
}

// ServeHTTP answers requests addressed to an allowed host, with headers
// that keep pages from being framed, sniffed or running foreign scripts.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	if s.hosts != nil && !s.hosts[hostName(r.Host)] {
		http.Error(w, "bench view: requests must address the viewer by its own address or localhost, not "+strconv.Quote(r.Host), http.StatusMisdirectedRequest)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// hostName is a Host header's name, without port or brackets, lower case.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

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
