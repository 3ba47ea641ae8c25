package harness

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// DefaultMaxFileSize is the largest fixture or golden file a load, replay
// or record reads when [Options.MaxFileSize] is 0: 64 MiB. Past it a file
// is refused with an error naming it, before a byte of it is read.
const DefaultMaxFileSize ByteSize = 64 << 20

// ByteSize is a size in bytes. As a [flag.Value] it reads a plain number
// or one with a unit (KiB, MiB, GiB, or KB, MB, GB for powers of 1000)
// and prints in the largest binary unit that divides it.
type ByteSize int64

var sizeUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}

// String formats the size as Set reads it: 64MiB, 1500B or 0.
func (b ByteSize) String() string {
	if b == 0 {
		return "0"
	}
	for _, u := range sizeUnits[:3] {
		if int64(b)%u.n == 0 {
			return strconv.FormatInt(int64(b)/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// Set parses a size such as 64MiB, 200MB or 1048576; it must be positive.
func (b *ByteSize) Set(s string) error {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return fmt.Errorf("size %q: want a positive number of bytes, optionally with KiB, MiB, GiB, KB, MB or GB", s)
	}
	*b = ByteSize(n * mult)
	return nil
}

// maxFileSize is the size limit of one file read.
func (o Options) maxFileSize() ByteSize {
	if o.MaxFileSize <= 0 {
		return DefaultMaxFileSize
	}
	return o.MaxFileSize
}

// readRegular reads the regular file at path (a symlink to one is fine),
// refusing anything else — a named pipe (which would block), a device
// such as /dev/zero (which never ends), a directory — and any file over
// limit bytes, before reading it. It opens without blocking, so a pipe
// with no writer cannot hang it.
func readRegular(path string, limit ByteSize) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("not a regular file but %s; only regular files are read", describeMode(fi.Mode()))}
	}
	if fi.Size() > int64(limit) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge(fi.Size(), limit)}
	}
	// Read what Stat promised and one byte more, to see the file grow.
	buf := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > int64(limit) {
			return nil, &fs.PathError{Op: "read", Path: path, Err: tooLarge(int64(len(buf)), limit)}
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew: make room
		}
	}
}

func tooLarge(size int64, limit ByteSize) error {
	return fmt.Errorf("%d bytes is over the limit of %s for one file (raise it with -max-file-size, or Options.MaxFileSize)", size, limit)
}

// describeMode names a file type for messages.
func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + m.Type().String() + ")"
}

// unwrapPath drops the operation and path of a *fs.PathError, for errors
// that name the file already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
