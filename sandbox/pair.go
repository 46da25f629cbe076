//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// peerGrace is how long a peer has to end by itself once its lead has
// ended (it reads the end of its pipe), before it is killed.
const peerGrace = 200 * time.Millisecond

// runPair runs p and p.Peer in two sandboxes, each with its own
// namespaces (and, as root, its own uid), so that neither can signal,
// trace or read the other's memory; what crosses is only what they write
// to the two pipes between them. p leads: once it has ended, its peer is
// killed if it does not end within peerGrace, and its Result is then as at
// a wall limit.
func (b *Bwrap) runPair(ctx context.Context, p Program) (Result, error) {
	peer := *p.Peer
	if peer.Peer != nil {
		return Result{}, errors.New("sandbox: a peer program has a peer of its own")
	}
	p.Peer = nil
	fromPeer, toLead, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	fromLead, toPeer, err := os.Pipe()
	if err != nil {
		closeAll([]*os.File{fromPeer, toLead})
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	peerCtx, stop := context.WithCancel(ctx)
	defer stop()
	type ended struct {
		res Result
		err error
	}
	peerDone := make(chan ended, 1)
	go func() {
		res, err := b.run(peerCtx, peer, []*os.File{fromLead, toLead})
		peerDone <- ended{res, err}
	}()
	res, err := b.run(ctx, p, []*os.File{fromPeer, toPeer})
	var pe ended
	select {
	case pe = <-peerDone: // it ended first, or on reading the lead's end
	case <-time.After(peerGrace):
		stop()
		pe = <-peerDone
	}
	if err != nil {
		return res, err
	}
	if pe.err != nil && ctx.Err() == nil && !errors.Is(pe.err, context.Canceled) {
		return res, fmt.Errorf("peer: %w", pe.err)
	}
	res.Peer = &pe.res
	return res, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
