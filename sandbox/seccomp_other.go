//go:build linux && !amd64 && !arm64

package sandbox

import (
	"fmt"
	"runtime"
)

// seccompFilter has system call tables for amd64 and arm64 only; there is
// no sandbox without its filter.
func seccompFilter(bool) ([]byte, error) {
	return nil, fmt.Errorf("%w: no seccomp filter for %s (amd64 and arm64 have one): run bench on one of those", ErrUnavailable, runtime.GOARCH)
}
