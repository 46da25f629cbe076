package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// A Session is one program that keeps running in one sandbox while its
// caller exchanges requests and replies with it, one at a time: a
// long-lived interpreter that keeps its state between requests, where a
// Program would have to be run again from the start. The program reads
// each request from file descriptor 3 and writes each reply to file
// descriptor 4, both framed as a 4-byte big-endian length and that many
// bytes.
//
// The sandbox is a program's (docs/sandbox.md): the same isolation, and
// the Program's limits over the session's whole life: Wall is its
// lifetime, CPU each of its processes' CPU time over that life, Memory,
// Procs and Disk what it may hold at any time, Output its standard output
// and error together. Each request has its own wait: a program that has
// not replied by then is ended, and the request fails with an EndedError
// whose Result says Timeout. A reply longer than Output ends it too
// (Output). A Session is safe for concurrent use; requests queue.
type Session struct {
	mu       sync.Mutex // one request at a time
	req      *os.File   // bench's end of the program's descriptor 3
	reply    *os.File   // bench's end of its descriptor 4
	kill     context.CancelFunc
	done     chan struct{} // closed once the sandbox has ended
	res      Result        // how it ended, once done
	err      error         // the sandbox's failure, once done
	deadline time.Time     // the wall limit
	max      int64         // bytes of one reply
}

// ErrSessionEnded is a request's error when the session's program is not
// running (it ended before the request, or was closed) or its wall limit
// would end it before the request's wait is over: nothing was sent. The
// program's state is gone; start another session.
var ErrSessionEnded = errors.New("sandbox: the session has ended")

// ErrNoSessions is a Starter's error when the runner beneath it keeps no
// sessions.
var ErrNoSessions = errors.New("sandbox: this runner keeps no sessions")

// EndedError is a request's error when the session's program ended while
// the request was being answered: its Result says how (Timeout when the
// request's wait ran out and the session ended it, Output for a reply
// over the limit). The session is closed.
type EndedError struct{ Result Result }

func (e *EndedError) Error() string {
	why := e.Result.Reason()
	if why == "" {
		why = "exit code 0"
	}
	return "sandbox: the session's program ended during the request (" + why + ")"
}

// Starter starts sessions. Bwrap is one; a runner Limit returns passes
// Start on to the runner it bounds (a session does not count against its
// bound: it runs one request at a time, while its caller waits).
type Starter interface {
	Start(ctx context.Context, p Program) (*Session, error)
}

// runFunc runs a program with conn as its descriptors 3, 4, ..., until it
// ends (Bwrap.run).
type runFunc func(ctx context.Context, p Program, conn []*os.File) (Result, error)

// startSession starts p on run. The session outlives ctx: only Close, a
// request's wait or its own limits end it.
func startSession(ctx context.Context, p Program, run runFunc) (*Session, error) {
	if p.Peer != nil {
		return nil, errors.New("sandbox: a session has no peer")
	}
	lim := p.Limits.WithDefaults()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("sandbox: session: %w", err)
	}
	sctx, kill := context.WithCancel(context.WithoutCancel(ctx))
	s := &Session{req: reqW, reply: repR, kill: kill, done: make(chan struct{}),
		deadline: time.Now().Add(lim.Wall), max: lim.Output}
	go func() {
		// run closes the program's ends once the sandbox holds them, so
		// the reply pipe reads its end when the program is gone.
		s.res, s.err = run(sctx, p, []*os.File{reqR, repW})
		close(s.done)
	}()
	return s, nil
}

// sessionMargin is how much of a session's life must be left beyond a
// request's wait for the request to be sent.
const sessionMargin = time.Second

// Call sends req and returns the reply, waiting at most wait for it. The
// errors: ErrSessionEnded (nothing was sent), an *EndedError (the program
// ended while answering; the session is closed), the sandbox's own
// failure (ErrUnavailable: it could not start the program), or ctx's
// (the session is then ended too: what the program was doing is lost).
func (s *Session) Call(ctx context.Context, req []byte, wait time.Duration) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.done:
		return nil, s.failure(ErrSessionEnded)
	default:
	}
	if time.Until(s.deadline) < wait+sessionMargin {
		return nil, ErrSessionEnded
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	due := time.Now().Add(wait)
	// A canceled ctx wakes the pipes' waits.
	stop := context.AfterFunc(ctx, func() {
		_ = s.req.SetWriteDeadline(time.Now())
		_ = s.reply.SetReadDeadline(time.Now())
	})
	defer stop()
	_ = s.req.SetWriteDeadline(due)
	_ = s.reply.SetReadDeadline(due)
	frame := make([]byte, 4, 4+len(req))
	binary.BigEndian.PutUint32(frame, uint32(len(req)))
	if _, err := s.req.Write(append(frame, req...)); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, s.end(ctx, Result{Status: Timeout})
		}
		// The program no longer reads: it is gone, or going.
		s.await(closeGrace)
		return nil, s.failure(ErrSessionEnded)
	}
	var head [4]byte
	_, err := io.ReadFull(s.reply, head[:])
	if err == nil {
		n := int64(binary.BigEndian.Uint32(head[:]))
		if n > s.max {
			return nil, s.end(ctx, Result{Status: Output, Truncated: true})
		}
		buf := make([]byte, n)
		if _, err = io.ReadFull(s.reply, buf); err == nil {
			return buf, nil
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, s.end(ctx, Result{Status: Timeout})
	}
	// End of the pipe: the program ended, or closed its descriptor 4.
	// How it ended, its sandbox says.
	s.await(closeGrace)
	if s.err != nil && !errors.Is(s.err, context.Canceled) {
		return nil, s.err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, &EndedError{Result: s.res}
}

// end ends the session during a request: at the request's wait (res), or
// because ctx ended.
func (s *Session) end(ctx context.Context, res Result) error {
	s.stop()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if s.err != nil && !errors.Is(s.err, context.Canceled) {
		return s.err
	}
	res.Stdout, res.Stderr, res.Duration = s.res.Stdout, s.res.Stderr, s.res.Duration
	return &EndedError{Result: res}
}

// failure is err, or the sandbox's own failure if it had one.
func (s *Session) failure(err error) error {
	if s.err != nil && !errors.Is(s.err, context.Canceled) {
		return s.err
	}
	return err
}

// stop ends the program, if it still runs, and waits for its sandbox to
// be gone.
func (s *Session) stop() {
	s.kill()
	<-s.done
}

// await gives the program grace to end by itself, then ends it.
func (s *Session) await(grace time.Duration) {
	select {
	case <-s.done:
	case <-time.After(grace):
		s.stop()
	}
}

// closeGrace is how long a closed session's program has to end by itself
// (it reads the end of its requests) before it is killed.
const closeGrace = time.Second

// Close ends the session: the program reads the end of its requests and
// has closeGrace to exit before it is killed. It returns how the program
// ended; a sandbox that failed is the error.
func (s *Session) Close() (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.req.Close()
	s.await(closeGrace)
	s.reply.Close()
	if s.err != nil && !errors.Is(s.err, context.Canceled) {
		return s.res, s.err
	}
	return s.res, nil
}

// Ended reports whether the program is gone.
func (s *Session) Ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
