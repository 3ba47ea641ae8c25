package capture

import (
	"net"
	"sync"
	"time"
)

// Borrow returns a listener that serves ln for one fake provider and
// leaves it open: closing it interrupts a pending Accept through ln's
// deadline, so that the next server can borrow ln in turn. A caller's
// listener (the address an agent started elsewhere is pointed at) thus
// serves every scenario of a session, and its owner closes it. A listener
// that has no deadline to interrupt it with is returned as it is, and is
// closed with the first server that serves it.
func Borrow(ln net.Listener) net.Listener {
	d, ok := ln.(interface{ SetDeadline(time.Time) error })
	if !ok {
		return ln
	}
	d.SetDeadline(time.Time{})
	return &borrowed{Listener: ln, setDeadline: d.SetDeadline, closed: make(chan struct{})}
}

// borrowed is ln as one server sees it.
type borrowed struct {
	net.Listener
	setDeadline func(time.Time) error
	once        sync.Once
	closed      chan struct{}
}

// Accept is ln's, until Close: then it takes no more connections (one
// that arrived as the server closed is refused, not half served), and
// gives ln back without the deadline that interrupted it. The server
// calls Accept once at a time, so none is pending then.
func (b *borrowed) Accept() (net.Conn, error) {
	c, err := b.Listener.Accept()
	select {
	case <-b.closed:
		if err == nil {
			c.Close()
		}
		b.setDeadline(time.Time{})
		return nil, net.ErrClosed
	default:
		return c, err
	}
}

// Close ends this server's use of ln, leaving ln open.
func (b *borrowed) Close() error {
	b.once.Do(func() {
		close(b.closed)
		b.setDeadline(time.Unix(1, 0)) // in the past: a pending Accept returns
	})
	return nil
}
