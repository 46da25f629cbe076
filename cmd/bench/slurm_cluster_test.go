package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// localCluster is scripts/slurm/local-cluster.sh.
const localCluster = "../../scripts/slurm/local-cluster.sh"

// runLocalCluster runs the script with arg as root (directly, or through
// sudo -n), returning its exit code, standard output and error.
func runLocalCluster(t *testing.T, arg string) (int, string, string) {
	t.Helper()
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command(localCluster, arg)
	} else {
		cmd = exec.Command("sudo", "-n", localCluster, arg)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %s: %v", localCluster, arg, err)
	}
	return code, out.String(), errb.String()
}

// TestLocalClusterScript runs scripts/slurm/local-cluster.sh on the
// cluster the Slurm tests use: status names each daemon with the pid that
// runs it and prints sinfo; start on a running cluster checks it and
// returns, restarting nothing and rewriting no configuration; an unknown
// command is a usage error.
func TestLocalClusterScript(t *testing.T) {
	t.Parallel()
	requireSlurm(t)
	if os.Geteuid() != 0 && exec.Command("sudo", "-n", "true").Run() != nil {
		if os.Getenv("BENCH_REQUIRE_SLURM") == "1" {
			t.Fatal("BENCH_REQUIRE_SLURM=1, but the script needs root and sudo -n fails")
		}
		t.Skip("the script runs as root: not root, and sudo -n fails")
	}
	code, out, stderr := runLocalCluster(t, "status")
	if code != 0 {
		t.Fatalf("status: exit %d\n%s%s", code, out, stderr)
	}
	pids := map[string]string{}
	for _, d := range []string{"munged", "slurmctld", "slurmd"} {
		m := regexp.MustCompile(`(?m)^local-cluster: ` + d + ` running \(pid (\d+)[ \d]*\)$`).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("status does not say %s runs:\n%s", d, out)
			continue
		}
		comm, err := os.ReadFile("/proc/" + m[1] + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != d {
			t.Errorf("status says %s is pid %s, which is %q (%v)", d, m[1], strings.TrimSpace(string(comm)), err)
		}
		pids[d] = m[1]
	}
	if !regexp.MustCompile(`(?m)^PARTITION +AVAIL +TIMELIMIT +NODES +STATE +NODELIST$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^debug\* +up .*(idle|mix|alloc)`).MatchString(out) {
		t.Errorf("status does not show sinfo's partition up:\n%s", out)
	}

	if code, _, stderr := runLocalCluster(t, "restart-everything"); code != 2 || !strings.Contains(stderr, "usage: ") {
		t.Errorf("an unknown command: exit %d, %q", code, stderr)
	}

	conf, err := os.ReadFile("/etc/slurm/slurm.conf")
	if err != nil || !bytes.Contains(conf, []byte("# written by reasonbench scripts/slurm/local-cluster.sh")) {
		t.Logf("start not tried: /etc/slurm/slurm.conf is not the script's (%v)", err)
		return
	}
	before, _ := os.Stat("/etc/slurm/slurm.conf")
	start := time.Now()
	code, out, stderr = runLocalCluster(t, "start")
	if code != 0 || !regexp.MustCompile(`(?m)^local-cluster: node \S+ (idle|mixed|allocated)`).MatchString(out) {
		t.Fatalf("start on a running cluster: exit %d\n%s%s", code, out, stderr)
	}
	t.Logf("start on a running cluster: %.1f s", time.Since(start).Seconds())
	after, _ := os.Stat("/etc/slurm/slurm.conf")
	if now, _ := os.ReadFile("/etc/slurm/slurm.conf"); !bytes.Equal(now, conf) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("start on a running cluster rewrote /etc/slurm/slurm.conf")
	}
	_, out, _ = runLocalCluster(t, "status")
	for d, pid := range pids {
		if !strings.Contains(out, d+" running (pid "+pid) {
			t.Errorf("%s is no longer pid %s after start (restarted?):\n%s", d, pid, out)
		}
	}
}
