package capture

import (
	"net"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/wire"
)

// A borrowed listener goes back to its owner as it was: open, and with
// no deadline left on it, so that its owner's Accept takes the next
// connection.
func TestBorrowGivesTheListenerBack(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for range 3 {
		b, reusable := Borrow(ln)
		if !reusable {
			t.Fatal("a TCP listener is not reusable")
		}
		srv, err := Start(Options{Listener: b, Replies: []wire.Reply{{Text: "ok"}}})
		if err != nil {
			t.Fatal(err)
		}
		srv.Close()
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	time.Sleep(50 * time.Millisecond) // an Accept under a past deadline fails at once
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case err := <-accepted:
		if err != nil {
			t.Fatalf("the owner's Accept after the runs: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the owner's Accept took nothing")
	}
}

// A listener with no deadline to lend it with is not lent: it is used
// once, as it is.
func TestBorrowWithoutDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	plain := struct{ net.Listener }{ln} // hides SetDeadline
	if got, reusable := Borrow(plain); reusable || got != net.Listener(plain) {
		t.Errorf("Borrow of a listener without SetDeadline = %v, %v", got, reusable)
	}
}
