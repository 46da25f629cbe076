package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "bench (no build information)"},
		{"go install with a tag", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Path: "github.com/reasonbench/reasonbench", Version: "v1.2.3"}},
			true, "github.com/reasonbench/reasonbench v1.2.3 go1.26.0"},
		{"checkout with vcs stamp", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Path: "github.com/reasonbench/reasonbench", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"},
				{Key: "vcs.time", Value: "2026-11-29T01:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			true, "github.com/reasonbench/reasonbench (devel) revision abc123 (2026-11-29T01:00:00Z) modified go1.26.0"},
		{"clean tree, empty version", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main:     debug.Module{Path: "github.com/reasonbench/reasonbench"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			true, "github.com/reasonbench/reasonbench (devel) revision abc123 go1.26.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.bi, tt.ok); got != tt.want {
				t.Errorf("versionLine = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionFlag: `bench --version` exits 0 and prints this test binary's
// build information (its Go version at least), not the usage text.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("test binary has no build info")
	}
	got := strings.TrimSpace(out.String())
	if !strings.HasSuffix(got, bi.GoVersion) || strings.Contains(got, "usage") {
		t.Errorf("bench --version printed %q, want a line ending in %s", got, bi.GoVersion)
	}
}
