//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// asm assembles a classic BPF program whose conditional jumps name labels
// further on ("" falls through to the next instruction).
type asm struct {
	prog   []unix.SockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf string
}

func (a *asm) stmt(code uint16, k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *asm) jump(op uint16, k uint32, jt, jf string) {
	a.fixups = append(a.fixups, fixup{len(a.prog), jt, jf})
	a.stmt(unix.BPF_JMP|op|unix.BPF_K, k)
}

func (a *asm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the jumps and encodes the program as the kernel's
// struct sock_filter array in native (little-endian) byte order.
func (a *asm) assemble() ([]byte, error) {
	off := func(at int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := a.labels[name]
		d := to - at - 1
		if !ok || d < 0 || d > 255 {
			return 0, fmt.Errorf("sandbox: seccomp filter: jump from %d to %q (%d) out of reach", at, name, to)
		}
		return uint8(d), nil
	}
	for _, f := range a.fixups {
		var err1, err2 error
		a.prog[f.at].Jt, err1 = off(f.at, f.jt)
		a.prog[f.at].Jf, err2 = off(f.at, f.jf)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, 8*len(a.prog))
	for _, in := range a.prog {
		b = binary.LittleEndian.AppendUint16(b, in.Code)
		b = append(b, in.Jt, in.Jf)
		b = binary.LittleEndian.AppendUint32(b, in.K)
	}
	return b, nil
}
