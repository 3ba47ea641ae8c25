package capture

import (
	"net"
	"sync"
	"time"
)

// Borrow returns a listener that serves ln for one fake provider and
// leaves it open: closing it interrupts a pending Accept through ln's
// deadline, and the server's Close clears the deadline once it has
// stopped, so that the next server can borrow ln in turn. A caller's
// listener (the address an agent started elsewhere is pointed at) thus
// serves every scenario of a session, one at a time, and its owner
// closes it. A listener that has no deadline to interrupt it with (or
// whose SetDeadline fails) is returned as it is, with reusable false: it
// is closed with the first server that serves it.
func Borrow(ln net.Listener) (_ net.Listener, reusable bool) {
	d, ok := ln.(interface{ SetDeadline(time.Time) error })
	if !ok || d.SetDeadline(time.Time{}) != nil {
		return ln, false
	}
	return &borrowed{Listener: ln, setDeadline: d.SetDeadline, closed: make(chan struct{})}, true
}

// borrowed is ln as one server sees it.
type borrowed struct {
	net.Listener
	setDeadline func(time.Time) error
	once        sync.Once
	closed      chan struct{}
}

// Accept is ln's, until Close: then it takes no more connections (one
// that arrived as the server closed is refused, not half served).
func (b *borrowed) Accept() (net.Conn, error) {
	c, err := b.Listener.Accept()
	select {
	case <-b.closed:
		if err == nil {
			c.Close()
		}
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

// release gives ln back without the deadline that interrupted it, once
// the server has stopped calling Accept.
func (b *borrowed) release() { b.setDeadline(time.Time{}) }
