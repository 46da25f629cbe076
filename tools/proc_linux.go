package tools

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// waitGroup waits at most d for a process group to end but for one
// process (stop's watcher, which ignores SIGTERM), reading /proc.
func waitGroup(group int, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if groupSize(group) <= 1 {
			return
		}
	}
}

// groupSize counts the live processes of a group (a zombie has ended).
func groupSize(group int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 2 // unknown: wait the whole time
	}
	n := 0
	for _, e := range ents {
		if e.Name()[0] < '1' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		if pg, err := strconv.Atoi(string(f[2])); err == nil && pg == group {
			n++
		}
	}
	return n
}
