//go:build unix && !linux

package capture

import "syscall"

// orphanSignal does nothing: only Linux signals a child when its parent
// dies.
func orphanSignal(*syscall.SysProcAttr) {}
