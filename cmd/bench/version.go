package main

import (
	"runtime/debug"
	"strings"
)

// versionLine is what `bench --version` prints: the module path and version
// (a tag with `go install ...@vX`, "(devel)" from a checkout) and, when the
// build stamped them, the VCS revision, its time and whether the tree was
// modified, so a results table can be traced to the code that made it.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "bench (no build information)"
	}
	path, ver := bi.Main.Path, bi.Main.Version
	if path == "" {
		path = "bench"
	}
	if ver == "" {
		ver = "(devel)"
	}
	parts := []string{path, ver}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value
		}
	}
	if rev != "" {
		r := "revision " + rev
		if at != "" {
			r += " (" + at + ")"
		}
		if dirty == "true" {
			r += " modified"
		}
		parts = append(parts, r)
	}
	parts = append(parts, bi.GoVersion)
	return strings.Join(parts, " ")
}
