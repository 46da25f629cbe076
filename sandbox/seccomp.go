//go:build linux && (amd64 || arm64)

package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// denied are the system calls a test program never needs and a hostile
// one would use to reach past the sandbox: other namespaces, other
// processes' memory, the kernel's keyrings, io_uring (which bypasses
// seccomp for the operations it queues), mounts, BPF, perf, userfaultfd,
// kernel modules and kexec. They fail with EPERM.
var denied = []uintptr{
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP, unix.SYS_PIDFD_GETFD,
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_UNSHARE, unix.SYS_SETNS,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_MOUNT_SETATTR,
	unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_SYSLOG,
	unix.SYS_VHANGUP, unix.SYS_LOOKUP_DCOOKIE, unix.SYS_MEMFD_SECRET,
}

// unbounded are the calls that make memory no rlimit counts: denied too
// when no memory cgroup bounds the sandbox (a memfd's pages, SysV shared
// memory that outlives the process that touched it).
var unbounded = []uintptr{unix.SYS_MEMFD_CREATE, unix.SYS_SHMGET}

// namespaceFlags are clone's flags that make a namespace.
const namespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// seccompFilter is the classic BPF program bwrap's --seccomp loads before
// it starts the launcher: the native architecture only (a 32-bit or x32
// system call is another table of numbers, and kills), the denied calls
// refused, clone refused with a namespace flag, and clone3, whose flags
// are behind a pointer a filter cannot read, answered ENOSYS so that the
// C library falls back to clone. Everything else is allowed.
func seccompFilter(denyUnbounded bool) ([]byte, error) {
	calls := denied
	if denyUnbounded {
		calls = append(calls[:len(calls):len(calls)], unbounded...)
	}
	return filterDenying(calls)
}

// filterDenying is seccompFilter with the EPERM list given.
func filterDenying(calls []uintptr) ([]byte, error) {
	arch := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // the low half of args[0] on a little-endian machine
	)
	var a asm
	a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	a.jump(unix.BPF_JEQ, arch, "", "kill")
	a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	if runtime.GOARCH == "amd64" {
		a.jump(unix.BPF_JGE, 0x40000000, "kill", "") // x32 calls carry this bit
	}
	for _, nr := range calls {
		a.jump(unix.BPF_JEQ, uint32(nr), "eperm", "")
	}
	a.jump(unix.BPF_JEQ, unix.SYS_CLONE3, "enosys", "")
	a.jump(unix.BPF_JEQ, unix.SYS_CLONE, "", "allow")
	a.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg0)
	a.jump(unix.BPF_JSET, namespaceFlags, "eperm", "")
	a.label("allow")
	a.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	a.label("enosys")
	a.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	a.label("kill")
	a.stmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_KILL_PROCESS)
	return a.assemble()
}
