//go:build !unix

package harness

import "os"

// openNoBlock opens path for reading; on this system opening does not
// block on special files.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
