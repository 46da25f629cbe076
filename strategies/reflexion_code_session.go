package strategies

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/tasks"
)

// nsSession keeps the shared namespace in one long-lived interpreter per
// run, a sandboxed program (sandbox.Session) that execs each step once,
// in order, and keeps what it defined: the run costs each step once,
// where replaying every earlier step in a fresh program costs the square
// of the run.
//
// Its results are those of the replay (runReplayed): the namespace after
// the steps hist is a fresh one holding the steps after the last one
// that ended its process (hist[from:]). A step that ends the interpreter
// (os._exit, a limit, or its wait: its timeout and a grace, past which
// the session ends it) is answered as the replay's last step is, and the
// next step starts a fresh interpreter. An interpreter that ended for
// any other reason (the run resumed, idle, its lifetime, a request for
// other steps than hist) is rebuilt: a fresh one execs hist[from:] again.
type nsSession struct {
	mu    sync.Mutex
	sess  *sandbox.Session // the interpreter; nil when none runs
	hist  []nsStep         // every step of the namespace, in order
	from  int              // hist[from:] are what a fresh interpreter must exec to hold the namespace
	known bool             // hist is the namespace's history (else the next request starts afresh)
	seq   uint64           // requests sent to sess
	nonce string           // sess's requests' prefix, drawn when it starts
	idle  *time.Timer      // ends an idle interpreter
	gen   int              // idle's generation
	none  bool             // the executor keeps no sessions: steps run as programs

	// grace is added to a step's timeout for its wait; life is an
	// interpreter's lifetime (its wall and CPU limit); idleAfter ends an
	// interpreter no step used for that long. Zero: the defaults.
	grace, life, idleAfter time.Duration
}

// Defaults of nsSession's durations.
const (
	nsGrace     = 10 * time.Second
	nsLife      = 6 * time.Hour
	nsIdleAfter = 15 * time.Minute
	nsStartWait = time.Minute // for the interpreter to start and answer
)

// nsReplyMax is the longest reply pySession sends (the session's output
// limit, 1 MiB, less 64 KiB): a longer output (a test's value printed
// whole) is answered as a failure with an empty output, as a replayed
// program killed at its output limit was.
const nsReplyMax = 1<<20 - 1<<16

func (n *nsSession) dur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// step is one exec into the namespace (reflexion_code_shared.go),
// with its digest: two steps are the same step when their digests are.
func mkStep(code, call string, timeout float64) nsStep {
	st := nsStep{Code: code, Call: call, Timeout: timeout}
	h := sha256.New()
	for _, s := range []string{code, call, strconv.FormatFloat(timeout, 'g', -1, 64)} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	h.Sum(st.sum[:0])
	return st
}

// same reports whether a and b are the same step.
func (a nsStep) same(b nsStep) bool {
	if a.sum == ([32]byte{}) || b.sum == ([32]byte{}) {
		return a.Code == b.Code && a.Call == b.Call && a.Timeout == b.Timeout
	}
	return a.sum == b.sum
}

// noSessions reports whether the executor was found to keep no sessions.
func (n *nsSession) noSessions() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.none
}

// run gives the outcome of step last in the namespace the steps before
// left, as runReplayed does, and records it at site. The error
// sandbox.ErrNoSessions says the executor keeps none.
func (n *nsSession) run(ctx context.Context, sx tasks.SessionExecutor, mode, site string, before []nsStep, last nsStep) (bool, string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopIdle()
	defer n.armIdle()
	if !n.known || len(n.hist) > len(before) || !samePrefix(n.hist, before) {
		n.reset()
	}
	start := time.Now()
	for len(n.hist) < len(before) {
		if _, _, _, err := n.step(ctx, sx, mode, before[len(n.hist)]); err != nil {
			return false, "", n.failed(err)
		}
	}
	ok, out, ended, err := n.step(ctx, sx, mode, last)
	if err != nil {
		return false, "", n.failed(err)
	}
	res := sandbox.Result{Status: sandbox.OK, Stdout: out, Duration: time.Since(start)}
	switch {
	case ended != nil:
		res.Status, res.ExitCode, res.Signal = ended.Status, ended.ExitCode, ended.Signal
	case !ok:
		res.Status, res.ExitCode = sandbox.Exit, 1
	}
	if err := sx.Record(ctx, site, sandbox.Program{Source: last.describe()}, res); err != nil {
		return false, "", err
	}
	return ok, out, nil
}

// failed notes a request that failed midway: what the namespace holds is
// not known, and the next request starts afresh.
func (n *nsSession) failed(err error) error {
	n.known = false
	if errors.Is(err, sandbox.ErrNoSessions) {
		n.none = true
	}
	return err
}

// describe is a step as its record shows it.
func (st nsStep) describe() string {
	if st.Call == "" {
		return st.Code
	}
	return st.Code + "\n# then the value of the call in: " + st.Call
}

func samePrefix(hist, before []nsStep) bool {
	for i := range hist {
		if !hist[i].same(before[i]) {
			return false
		}
	}
	return true
}

// reset forgets the namespace: the next step starts a fresh one.
func (n *nsSession) reset() {
	n.drop()
	n.hist, n.from, n.known = nil, 0, true
}

// drop ends the interpreter, if one runs; hist[from:] rebuild it.
func (n *nsSession) drop() {
	if n.sess != nil {
		_, _ = n.sess.Close()
		n.sess = nil
	}
}

// close ends the interpreter for good (the run is over).
func (n *nsSession) close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopIdle()
	n.drop()
}

func (n *nsSession) stopIdle() {
	n.gen++
	if n.idle != nil {
		n.idle.Stop()
		n.idle = nil
	}
}

func (n *nsSession) armIdle() {
	if n.sess == nil {
		return
	}
	gen := n.gen
	n.idle = time.AfterFunc(n.dur(n.idleAfter, nsIdleAfter), func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.gen == gen {
			n.drop()
		}
	})
}

// nsReply is the interpreter's answer to one request.
type nsReply struct {
	Nonce  string `json:"nonce"`
	OK     bool   `json:"ok"`
	Output string `json:"output"`
}

// step execs st in the interpreter (starting or rebuilding one first)
// and appends it to hist. ended says how the interpreter ended during
// it, if it did.
func (n *nsSession) step(ctx context.Context, sx tasks.SessionExecutor, mode string, st nsStep) (ok bool, out string, ended *sandbox.Result, err error) {
	for tries := 0; ; tries++ {
		if err := n.ensure(ctx, sx, mode); err != nil {
			return false, "", nil, err
		}
		v, end, err := n.send(ctx, mode, st)
		if errors.Is(err, sandbox.ErrSessionEnded) && tries == 0 {
			// It ended between steps (its lifetime, killed): rebuild.
			n.drop()
			continue
		}
		if err != nil {
			n.drop()
			return false, "", nil, err
		}
		n.hist = append(n.hist, st)
		if end != nil {
			n.from = len(n.hist)
			out := ""
			if end.Status == sandbox.Timeout || end.Status == sandbox.CPU {
				out = "TIMEOUT"
			}
			return false, out, end, nil
		}
		return v.OK, v.Output, nil, nil
	}
}

// send sends one step to the running interpreter. A step that ended it,
// or garbled its reply (it wrote to the interpreter's descriptors), is
// end: the interpreter is gone.
func (n *nsSession) send(ctx context.Context, mode string, st nsStep) (nsReply, *sandbox.Result, error) {
	n.seq++
	nonce := n.nonce + strconv.FormatUint(n.seq, 10)
	req, err := json.Marshal(map[string]any{"nonce": nonce, "code": st.Code, "call": st.Call, "timeout": st.Timeout, "mode": mode})
	if err != nil {
		return nsReply{}, nil, err
	}
	wait := time.Duration(st.Timeout*float64(time.Second)) + n.dur(n.grace, nsGrace)
	reply, err := n.sess.Call(ctx, req, wait)
	var e *sandbox.EndedError
	if errors.As(err, &e) {
		n.drop()
		return nsReply{}, &e.Result, nil
	}
	if err != nil {
		return nsReply{}, nil, err
	}
	var v nsReply
	if json.Unmarshal(reply, &v) != nil || v.Nonce != nonce {
		n.drop()
		return nsReply{}, &sandbox.Result{Status: sandbox.Crash, Signal: "a garbled reply"}, nil
	}
	return v, nil, nil
}

// ensure starts an interpreter if none runs and rebuilds the namespace in
// it: hist[from:] again, each step that ends one moving from past it.
func (n *nsSession) ensure(ctx context.Context, sx tasks.SessionExecutor, mode string) error {
	for n.sess == nil {
		life := n.dur(n.life, nsLife)
		sess, err := sx.StartSession(ctx, sandbox.Program{Source: pySession, Limits: sandbox.Limits{Wall: life, CPU: life}})
		if err != nil {
			if errors.Is(err, sandbox.ErrNoSessions) {
				return err
			}
			return fmt.Errorf("reflexion_code: starting the shared namespace's interpreter: %w", err)
		}
		var b [8]byte
		_, _ = rand.Read(b[:])
		n.sess, n.seq, n.nonce = sess, 0, hex.EncodeToString(b[:])+"-"
		ping, _ := json.Marshal(map[string]any{"nonce": n.nonce + "0", "ping": true})
		reply, err := sess.Call(ctx, ping, nsStartWait)
		var v nsReply
		if err == nil && (json.Unmarshal(reply, &v) != nil || v.Nonce != n.nonce+"0" || !v.OK) {
			err = errors.New("it answered its first request with something else")
		}
		if err != nil {
			n.drop()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("reflexion_code: the shared namespace's interpreter did not start: %w", err)
		}
		for i := n.from; i < len(n.hist); i++ {
			_, end, err := n.send(ctx, mode, n.hist[i])
			if err != nil {
				n.drop()
				return fmt.Errorf("reflexion_code: rebuilding the shared namespace: %w", err)
			}
			if end != nil {
				// It ended a process here too: what follows goes on in a
				// fresh one.
				n.from = i + 1
				break
			}
		}
	}
	return nil
}

// pySession is the shared namespace's interpreter: it answers one
// request at a time (sandbox.Session's frames on descriptors 3 and 4,
// moved out of the way of the steps' own descriptors), each a step run
// as runReplayed's program runs each of its steps, in one namespace
// seeded as the reference's executor module's, under the step's alarm;
// the steps' output goes nowhere (descriptors 1 and 2 too). The reply echoes the request's nonce;
// one longer than its limit is a failure with an empty output.
const pySession = `import ast, fcntl, io, json, os, signal, struct, sys

def _main():
    rfd = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 500)
    wfd = fcntl.fcntl(4, fcntl.F_DUPFD_CLOEXEC, 500)
    os.close(3)
    os.close(4)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    parse, Expression, loads, dumps = ast.parse, ast.Expression, json.loads, json.dumps
    limit = 983040  # nsReplyMax

    def read(n):
        b = b""
        while len(b) < n:
            c = os.read(rfd, n - len(b))
            if not c:
                os._exit(0)
            b += c
        return b

    def write(obj):
        b = dumps(obj).encode()
        if len(b) > limit:
            b = dumps({"nonce": obj["nonce"], "ok": False, "output": ""}).encode()
        b = struct.pack(">I", len(b)) + b
        while b:
            b = b[os.write(wfd, b):]

    class Nowhere(io.TextIOBase):
        def write(self, s):
            return len(s)

    sys.stdout = sys.stderr = Nowhere()
    ns = {"__name__": "executors.py_executor", "__builtins__": __builtins__}
    exec("import ast\nimport signal\nfrom typing import List\n", ns)

    def alarm(signum, frame):
        raise TimeoutError()

    while True:
        n, = struct.unpack(">I", read(4))
        job = loads(read(n))
        if job.get("ping"):
            write({"nonce": job["nonce"], "ok": True, "output": ""})
            continue
        call = None
        if job["call"]:
            try:
                test = parse(job["call"]).body[0].test
                node = test.left if job["mode"] == "left" else getattr(test, "left", test)
                call = compile(Expression(node), "<test>", "eval")
            except Exception as e:
                call = e
        signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, job["timeout"])
        try:
            exec(job["code"], ns)
            if job["call"]:
                if isinstance(call, Exception):
                    raise call
                output = str(eval(call, ns))
            else:
                output = ""
            signal.setitimer(signal.ITIMER_REAL, 0)
            ok = True
        except TimeoutError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            ok, output = False, "TIMEOUT"
        except BaseException as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            try:
                ok, output = False, str(e)
            except BaseException:
                ok, output = False, ""
        write({"nonce": job["nonce"], "ok": ok, "output": output})

_main()
`

// Close ends the shared namespace's interpreter (bench calls it once the
// run is over).
func (s *reflexionCode) Close() error {
	s.ns.close()
	return nil
}
