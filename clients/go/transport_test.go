package crdstore_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	crdstore "github.com/crdstore/crdstore/clients/go"
	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// pingCounter is a loopback proxy to a server that counts the PING frames
// (not their acknowledgements) its clients send.
type pingCounter struct {
	addr  string
	pings atomic.Int64
}

func countPings(t *testing.T, target string) *pingCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	p := &pingCounter{addr: ln.Addr().String()}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			go func() { _, _ = io.Copy(client, server); _ = client.Close() }()
			go func() {
				// The client's bytes go to the server and, through a pipe,
				// to a framer that reads them as HTTP/2 frames.
				reader, writer := io.Pipe()
				go p.read(reader)
				_, _ = io.Copy(io.MultiWriter(server, writer), client)
				_ = writer.Close()
				_ = server.Close()
			}()
		}
	}()
	return p
}

func (p *pingCounter) read(r *io.PipeReader) {
	defer func() { _, _ = io.Copy(io.Discard, r) }()
	if _, err := io.ReadFull(r, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	framer := http2.NewFramer(nil, r)
	for {
		frame, err := framer.ReadFrame()
		if err != nil {
			return
		}
		if ping, ok := frame.(*http2.PingFrame); ok && !ping.IsAck() {
			p.pings.Add(1)
		}
	}
}

// Dial's fixed windows keep grpc-go from probing the bandwidth with a
// PING after each response; a connection with grpc-go's defaults, through
// the same proxy, shows the proxy would see them.
func TestRequestsSendNoFlowControlPings(t *testing.T) {
	s, _, _, ctx := setup(t)
	const calls = 50

	ours := countPings(t, s.grpc)
	client, err := crdstore.Dial(ours.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for range calls {
		if _, err := client.Definitions.Get(ctx, "widgets.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if n := ours.pings.Load(); n != 0 {
		t.Errorf("crdstore.Dial: %d PING frames over %d calls, want none", n, calls)
	}

	defaults := countPings(t, s.grpc)
	conn, err := grpc.NewClient(defaults.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	definitions := v1.NewCustomResourceDefinitionsClient(conn)
	for range calls {
		if _, err := definitions.Get(ctx, &v1.GetDefinitionRequest{Name: "widgets.example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := defaults.pings.Load(); n < calls/2 {
		t.Errorf("grpc-go's defaults: %d PING frames over %d calls, want about one per call", n, calls)
	}
}
