package capture

import "syscall"

// orphanSignal asks the kernel to send the agent SIGTERM when the process
// that started it dies, so that an agent does not go on running its tools
// after a record or replay was killed (SIGKILL, the OOM killer), when
// nothing is left to stop its process group. Go starts the agent from a
// thread that lives as long as the process (no goroutine here locks one),
// and the signal is sent when that thread exits.
func orphanSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
