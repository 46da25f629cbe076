//go:build linux

package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPairTalks: two sandboxes exchange data over descriptors 3 and 4,
// each gets its own Result, and an ordinary program has neither
// descriptor.
func TestPairTalks(t *testing.T) {
	r := runner(t)
	lead := Program{Source: `import os
os.write(4, b"ping\n")
print(os.read(3, 100).decode().strip())
`, Peer: &Program{Source: `import os, sys
got = os.read(3, 100).decode().strip()
os.write(4, (got + " pong\n").encode())
print("peer said it", file=sys.stderr)
`}}
	res, err := r.Run(context.Background(), lead)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != OK || res.Stdout != "ping pong\n" || res.Peer == nil || res.Peer.Status != OK || res.Peer.Stderr != "peer said it\n" {
		t.Fatalf("lead %+v, peer %+v", res, res.Peer)
	}
	alone, err := r.Run(context.Background(), Program{Source: `import os
for fd in (3, 4):
    try:
        os.fstat(fd)
        print("open", fd)
    except OSError:
        pass
`})
	if err != nil || alone.Stdout != "" || alone.Peer != nil {
		t.Fatalf("a program without a peer: %+v, %v", alone, err)
	}
}

// TestPairIsolated: the peer cannot see the lead's processes, cannot
// signal them (kill(-1, 9) ends only its own sandbox), and the lead reads
// the end of the pipe when its peer is gone.
func TestPairIsolated(t *testing.T) {
	r := runner(t)
	lead := Program{Source: `import os, sys, time
# lead-marker-5d1e
data = b""
while True:
    b = os.read(3, 4096)
    if not b:
        break
    data += b
print(data.decode())
`, Peer: &Program{Source: `import os, signal
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            seen.append(open("/proc/%s/cmdline" % pid, "rb").read())
        except OSError:
            pass
os.write(4, b"saw-lead" if any(b"lead-marker" in c for c in seen) else b"alone")
os.close(4)
os.kill(-1, signal.SIGKILL)
`}}
	res, err := r.Run(context.Background(), lead)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != OK || strings.TrimSpace(res.Stdout) != "alone" {
		t.Fatalf("lead %+v (peer %+v)", res, res.Peer)
	}
}

// TestPairLeadEndsPeer: a peer that never ends is killed when the lead
// ends, long before its own wall limit; a peer that could not start is
// the run's error.
func TestPairLeadEndsPeer(t *testing.T) {
	r := runner(t)
	start := time.Now()
	res, err := r.Run(context.Background(), Program{Source: "print('done')\n", Limits: Limits{Wall: 20 * time.Second},
		Peer: &Program{Source: "while True:\n    pass\n", Limits: Limits{Wall: 20 * time.Second, CPU: 20 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); res.Status != OK || res.Peer == nil || res.Peer.Status != Timeout || took > 10*time.Second {
		t.Fatalf("lead %+v, peer %+v after %v", res, res.Peer, took)
	}
	if _, err := r.Run(context.Background(), Program{Source: "pass\n", Peer: &Program{Source: "pass\n", Peer: &Program{}}}); err == nil {
		t.Fatal("a peer with a peer ran")
	}
	if _, err := r.Run(context.Background(), Program{Source: "pass\n", Peer: &Program{Source: "pass\n", Files: map[string]string{"../x": ""}}}); err == nil {
		t.Fatal("a peer that could not start is no error")
	}
}
