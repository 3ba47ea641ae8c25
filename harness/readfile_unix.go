//go:build unix

package harness

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK, so that opening a
// named pipe with no writer returns instead of waiting for one. Reads of
// a regular file are not affected by the flag.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
