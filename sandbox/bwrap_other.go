//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"runtime"
)

// Bwrap is the bubblewrap runner, which exists on Linux only.
type Bwrap struct{}

// NewBwrap fails outside Linux: bubblewrap is built on Linux namespaces.
func NewBwrap(context.Context) (*Bwrap, error) {
	return nil, fmt.Errorf("%w: bubblewrap runs only on Linux, not %s: run bench on Linux (or in a Linux container) to execute programs", ErrUnavailable, runtime.GOOS)
}

// Run never runs anything here.
func (*Bwrap) Run(context.Context, Program) (Result, error) {
	return Result{}, fmt.Errorf("%w: bubblewrap runs only on Linux", ErrUnavailable)
}

// Start never starts anything here.
func (*Bwrap) Start(context.Context, Program) (*Session, error) {
	return nil, fmt.Errorf("%w: bubblewrap runs only on Linux", ErrUnavailable)
}
