//go:build !unix

package tools

import (
	"errors"
	"io"
	"os"
)

// process is a started stdio server; there are none off unix.
type process struct {
	stdin  *os.File
	stdout *os.File
}

// startProcess refuses: a stdio server's process group, which ends
// whatever it starts, needs a unix system.
func startProcess(Server, []string, io.Writer) (*process, error) {
	return nil, errors.New("stdio MCP servers need a unix system (give a url)")
}

func (*process) stop() {}
