package strategies

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Sourced is implemented by strategies whose code lives outside this
// build (a program's script): Sources returns the files the configured
// strategy runs, by the path its configuration names them, with the
// SHA-256 of each. The engine records them in the run's spec, so that a
// table names the code that produced it, and refuses to resume a run
// whose files changed.
type Sourced interface {
	Sources() (map[string]string, error)
}

// systemDirs hold interpreters and tools, versioned by the system, not
// the researcher's code.
var systemDirs = []string{"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/", "/opt/"}

// Sources digests the files a program's command names: every word of cmd
// (split as a shell splits plain words and quotes) that is an existing
// regular file outside the system's directories.
func (s *program) Sources() (map[string]string, error) {
	out := map[string]string{}
	for _, w := range shellWords(s.cmd) {
		abs, err := filepath.Abs(w)
		if err != nil {
			continue
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() || underAny(abs, systemDirs) {
			continue
		}
		sum, err := fileDigest(abs)
		if err != nil {
			return nil, fmt.Errorf("program source %s: %w", w, err)
		}
		out[w] = sum
	}
	return out, nil
}

func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d) {
			return true
		}
	}
	return false
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// shellWords splits a command line into words as a shell splits plain
// words: whitespace separates, single and double quotes group, a
// backslash escapes the next character outside single quotes. Anything
// else a shell does (variables, globs, operators) is left as text: the
// words are only looked up as files.
func shellWords(cmd string) []string {
	var (
		words []string
		cur   strings.Builder
		in    bool // a word has started
		quote rune
	)
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			in = true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
