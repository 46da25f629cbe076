package code

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/sandbox"
)

// The reference rule: how noahshinn/reflexion's Python executor judges a
// run (programming_runs/executors/py_executor.py, py_evaluate). Where it
// departs from isolated execution:
//
//   - The program is the solution, the test and check(entry_point), always
//     (MBPP's test has called test_check() already, so its checks run
//     twice), with no imports added from the prompt.
//   - It is exec'd into the executor module's globals, which already hold
//     ast, signal and typing's List: a solution using List without
//     importing it passes.
//   - Every problem of a run shares those globals, in order: a solution
//     that defines sum or max, or imports math, changes what later
//     problems see. `bench score --rule reference` runs a file's lines so,
//     in file order, in one sandbox program.
//   - Each problem gets a 10 s SIGALRM, caught as an ordinary exception;
//     only Exception subclasses count as failures. A SystemExit would end
//     the reference's whole run; here it fails that problem, and a run
//     that dies (a crash, os._exit, a limit of the sandbox) fails the
//     problem it was on and goes on with the next in a fresh namespace,
//     as the reference resumes its log (enumerate_resume) in a new process.
//
// The driver writes each verdict, marked with a nonce the Go side drew and
// passed on standard input, to a duplicate of standard output taken before
// any problem ran; the problems' own output goes nowhere. A problem cannot
// print a verdict line without the nonce; one that digs it out of the
// driver's frames could, and a second verdict for an index is then
// recorded as a failure. The rule replays logged runs of a paper; runs of
// untrusted models use the isolated rule.

// ReferenceProgram is what the reference executes for one problem.
func ReferenceProgram(p Problem, code string) string {
	return Solution(p.Prompt, p.EntryPoint, code) + "\n\n" + p.HiddenTest + "\n\ncheck(" + p.EntryPoint + ")\n"
}

// refDriver runs the programs in problems.json in one namespace.
const refDriver = `import io, json, os, signal, sys

def _main():
    nonce = sys.stdin.readline().strip()
    with open("problems.json") as f:
        progs = json.load(f)
    os.remove("problems.json")
    out = os.fdopen(os.dup(1), "w", buffering=1)

    class Nowhere(io.TextIOBase):
        def write(self, s):
            return len(s)

    sys.stdout = sys.stderr = Nowhere()
    ns = {"__name__": "executors.py_executor", "__builtins__": __builtins__}
    exec("import ast\nimport signal\nfrom typing import List\n", ns)

    def alarm(signum, frame):
        raise TimeoutError()

    for i, prog in enumerate(progs):
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(10)
        try:
            exec(prog, ns)
            signal.alarm(0)
            verdict, why = "pass", ""
        except Exception as e:
            signal.alarm(0)
            verdict, why = "fail", (type(e).__name__ + ": " + str(e))[:300]
        except BaseException as e:
            signal.alarm(0)
            verdict, why = "fail", (type(e).__name__ + " (ends the reference's whole run): " + str(e))[:300]
        out.write("\n" + nonce + " " + str(i) + " " + verdict + " " + json.dumps(why) + "\n")

_main()
`

type refItem struct{ code string }

type refVerdict struct {
	pass   bool
	reason string
}

// runReference runs items' programs in order in one namespace, restarting
// in a fresh one after a problem that ends the process.
func runReference(ctx context.Context, ex interface {
	Execute(context.Context, string, sandbox.Program) (sandbox.Result, error)
}, site string, items []refItem) ([]refVerdict, error) {
	out := make([]refVerdict, len(items))
	for start, part := 0, 0; start < len(items); part++ {
		rest := items[start:]
		progs := make([]string, len(rest))
		for i, it := range rest {
			progs[i] = it.code
		}
		blob, err := json.Marshal(progs)
		if err != nil {
			return nil, fmt.Errorf("reference run: %w", err)
		}
		lim := sandbox.Limits{Wall: time.Duration(len(rest))*Limits.Wall + 20*time.Second,
			CPU: time.Duration(len(rest))*Limits.CPU + 20*time.Second}
		s := site
		if part > 0 {
			s += "/resume" + strconv.Itoa(part)
		}
		nonce := refNonce(s, blob)
		res, err := ex.Execute(ctx, s, sandbox.Program{Source: refDriver, Files: map[string]string{"problems.json": string(blob)},
			Stdin: nonce + "\n", Limits: lim})
		if err != nil {
			return nil, err
		}
		got := parseVerdicts(res.Stdout, nonce, len(rest))
		done := 0
		for done < len(rest) && got[done] != nil {
			out[start+done] = *got[done]
			done++
		}
		if done < len(rest) { // the process ended on this problem
			why := res.Reason()
			if why == "" {
				why = "exited"
			}
			if f := failure(res.Stderr); f != "" {
				why += ": " + f
			}
			out[start+done] = refVerdict{reason: "the shared run ended on this problem (" + why + "); the rest go on in a fresh namespace"}
			done++
		}
		start += done
	}
	return out, nil
}

// parseVerdicts reads the nonce-marked verdict lines; got[i] is nil for a
// problem with none. A second line for an index makes it a failure.
func parseVerdicts(stdout, nonce string, n int) []*refVerdict {
	got := make([]*refVerdict, n)
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), nonce+" ")
		if !ok {
			continue
		}
		f := strings.SplitN(rest, " ", 3)
		if len(f) != 3 {
			continue
		}
		i, err := strconv.Atoi(f[0])
		if err != nil || i < 0 || i >= n {
			continue
		}
		var why string
		_ = json.Unmarshal([]byte(f[2]), &why)
		if got[i] != nil {
			got[i] = &refVerdict{reason: "two verdict lines for this problem: a program wrote one"}
			continue
		}
		got[i] = &refVerdict{pass: f[1] == "pass", reason: why}
	}
	return got
}

// refNonce is the marker of one run's verdict lines, a digest of what the
// run executes (as finishMarker), so that a rerun records the same
// execution. The programs never see it: it comes on standard input, read
// before the first runs (one that digs it or their own text out of the
// driver's frames could, as the comment above says).
func refNonce(site string, blob []byte) string {
	sum := sha256.Sum256(append([]byte("reasonbench reference verdicts\x00"+site+"\x00"), blob...))
	return hex.EncodeToString(sum[:16])
}
