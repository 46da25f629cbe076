package tasks

import (
	"crypto/sha256"
	"encoding/hex"
)

// Dataset says exactly which data a task scores; runs record it, and
// tables name file tasks by it.
type Dataset struct {
	// Name is what the data is called: a bundled task's name, a file's
	// base name (or its spec's name).
	Name string `json:"name"`
	// Path is the data file's absolute path; "" for embedded data.
	Path string `json:"path,omitempty"`
	// SHA256 is "sha256:" and the hex digest of the data's bytes.
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
	// Spec is the task-spec file's absolute path, SpecSHA256 its digest and
	// SpecText its contents (small; kept so the run can be redone).
	Spec       string `json:"spec,omitempty"`
	SpecSHA256 string `json:"spec_sha256,omitempty"`
	SpecText   string `json:"spec_text,omitempty"`
}

// Short is the first 8 hex digits of the data's digest.
func (d Dataset) Short() string {
	const prefix = len("sha256:")
	if len(d.SHA256) < prefix+8 {
		return d.SHA256
	}
	return d.SHA256[prefix : prefix+8]
}

// DataSource is implemented by tasks that can name their data.
type DataSource interface {
	Dataset() Dataset
}

// SHA256 is "sha256:" and the hex digest of b.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
