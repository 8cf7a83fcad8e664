package testkit

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
)

// IdleFlood opens n keep-alive connections to addr, sends one request on
// each (GET /-/healthy), reads its answer and leaves the connection idle:
// a flood of idle clients at a server's connection limit. The connections
// close when the test ends or guard is done. closed receives the index
// of each connection the server closes (its read ends in EOF), so a test
// waits on the event rather than on time.
func IdleFlood(t *testing.T, guard context.Context, addr string, n int) (closed <-chan int) {
	t.Helper()
	ch := make(chan int, n)
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		stop := context.AfterFunc(guard, func() { c.Close() })
		t.Cleanup(func() { stop() })
		if _, err := io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		go func() {
			if _, err := br.ReadByte(); errors.Is(err, io.EOF) {
				ch <- i
			}
		}()
	}
	return ch
}
