// Package prompts holds the prompt templates as plain text files, embedded
// in the binary and overridable from a user folder.
package prompts

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"
)

//go:embed */*.txt
var bundled embed.FS

// Library is a set of named templates ("game24/cot", ...). It is safe for
// concurrent use once built.
type Library struct {
	texts map[string]string
	tmpls map[string]*template.Template
	pack  string // "bundled", or "folder:" and a hash of the override texts
}

// Bundled returns the templates shipped in the binary. They are parsed
// once per process (a Library is immutable): tests and tools that render
// a prompt per item called this per item, a third of their time.
func Bundled() (*Library, error) { return bundledLibrary() }

var bundledLibrary = sync.OnceValues(func() (*Library, error) { return load(bundled, nil) })

// BundledPack is the pack name of the templates shipped in the binary.
const BundledPack = "bundled"

// Pack names the prompt pack: "bundled", or for an override folder
// "folder:" and a hash of its texts (names and bytes), so runs with
// different texts in the same folder are told apart.
func (l *Library) Pack() string { return l.pack }

// WithOverrides returns the bundled templates with every *.txt file under dir
// (laid out as task/name.txt) taking precedence over the bundled one.
func WithOverrides(dir string) (*Library, error) {
	if dir == "" {
		return Bundled()
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("prompt folder: %w", err)
	}
	return load(bundled, os.DirFS(dir))
}

func load(base fs.FS, over fs.FS) (*Library, error) {
	lib := &Library{texts: map[string]string{}, tmpls: map[string]*template.Template{}, pack: BundledPack}
	packHash := sha256.New()
	overrides := 0
	add := func(fsys fs.FS, isOver bool) error {
		return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || path.Ext(p) != ".txt" {
				return nil
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(filepath.ToSlash(p), ".txt")
			t, err := template.New(name).Option("missingkey=error").Parse(string(b))
			if err != nil {
				return fmt.Errorf("parse template %s: %w", p, err)
			}
			lib.texts[name] = string(b)
			lib.tmpls[name] = t
			if isOver { // WalkDir goes in lexical order, so the hash is stable
				fmt.Fprintf(packHash, "%d:%s%d:", len(name), name, len(b))
				packHash.Write(b)
				overrides++
			}
			return nil
		})
	}
	if err := add(base, false); err != nil {
		return nil, err
	}
	if over != nil {
		if err := add(over, true); err != nil {
			return nil, err
		}
	}
	if overrides > 0 {
		lib.pack = "folder:" + hex.EncodeToString(packHash.Sum(nil)[:6])
	}
	return lib, nil
}

// ErrUnknown is returned for a template name the library does not have.
var ErrUnknown = errors.New("unknown prompt template")

// Render executes the named template with data.
func (l *Library) Render(name string, data any) (string, error) {
	t, ok := l.tmpls[name]
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknown, name)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// Text returns a template's source text.
func (l *Library) Text(name string) (string, bool) {
	t, ok := l.texts[name]
	return t, ok
}

// Names lists the templates, sorted.
func (l *Library) Names() []string {
	names := make([]string, 0, len(l.texts))
	for n := range l.texts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Hash returns a short content hash of a template, recorded with runs so a
// table can say exactly which prompt produced it.
func (l *Library) Hash(name string) string {
	sum := sha256.Sum256([]byte(l.texts[name]))
	return hex.EncodeToString(sum[:6])
}
