//go:build unix && !linux

package tools

import "time"

// waitGroup waits d: without /proc, whether the group has ended but for
// stop's watcher is not known.
func waitGroup(group int, d time.Duration) { time.Sleep(d) }
