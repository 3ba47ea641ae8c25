//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive advisory lock (flock) on the directory dir,
// retrying for up to wait while another process holds it, and returns
// the function that releases it. The lock goes with the open directory,
// so a killed process never leaves it taken, and no lock file is made.
func lockDir(ctx context.Context, dir string, wait time.Duration) (func() error, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	fd := int(d.Fd())
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() error {
				uerr := syscall.Flock(fd, syscall.LOCK_UN)
				return errors.Join(uerr, d.Close())
			}, nil
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			d.Close()
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			d.Close()
			return nil, fmt.Errorf("%s: %w (waited %s for its lock); run one record at a time, or try again when the other has finished", dir, ErrLocked, wait)
		}
		select {
		case <-ctx.Done():
			d.Close()
			return nil, interrupted(ctx, "while waiting for the lock on "+dir+"; nothing was written")
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}
