package main

// crdstore over gRPC, through the generated stubs of the Go client
// (clients/go): objects go out as the prepared JSON bytes and come back as
// bytes, as etcd's values do, so the load generator parses nothing. Watch
// events are not even decoded: each watcher scans the event's bytes for
// its type, name and resourceVersion (rawCodec), as the HTTP watcher scans
// its lines and the etcd watcher reads its events' keys.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	encproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	crdstore "github.com/crdstore/crdstore/clients/go"
	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

type crdGRPC struct {
	addr string
	size int

	mu    sync.Mutex
	conns map[int]*grpc.ClientConn // the watchers' shared connections
}

func dialGRPC(addr string) (*grpc.ClientConn, error) {
	// A whole list of 10,000 objects is over gRPC's default 4 MB; etcd's
	// client also takes any size. The flow-control windows are those of
	// crdstore's Go client, which etcd's client is given too.
	opts := append(crdstore.WindowOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)))
	return grpc.NewClient(addr, opts...)
}

// define creates the bench definition and waits until it is served.
func define(ctx context.Context, grpcAddr string) error {
	c, err := crdstore.Dial(grpcAddr)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Definitions.Create(ctx, definition(), nil); err != nil && !errors.Is(err, crdstore.ErrAlreadyExists) {
		return fmt.Errorf("creating the definition: %w", err)
	}
	_, err = c.Definitions.WaitEstablished(ctx, crdName)
	return err
}

func ref(space, name string) *v1.ResourceRef {
	return &v1.ResourceRef{Group: group, Version: version, Resource: plural, Namespace: space, Name: name}
}

func (t *crdGRPC) clients(n int) ([]client, error) {
	out := make([]client, n)
	for i := range out {
		conn, err := dialGRPC(t.addr)
		if err != nil {
			return nil, err
		}
		out[i] = &grpcClient{t: t, conn: conn, api: v1.NewCustomResourcesClient(conn), rv: map[string]string{}}
	}
	return out, nil
}

func (t *crdGRPC) revision(ctx context.Context, space string) (string, error) {
	conn, err := dialGRPC(t.addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	resp, err := v1.NewCustomResourcesClient(conn).List(ctx, &v1.ListResourcesRequest{Ref: ref(space, ""), Options: &v1.ListOptions{Limit: 1}})
	if err != nil {
		return "", err
	}
	return resp.GetResourceVersion(), nil
}

func (t *crdGRPC) watchConn(i int) (*grpc.ClientConn, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = map[int]*grpc.ClientConn{}
	}
	if c, ok := t.conns[i]; ok {
		return c, nil
	}
	c, err := dialGRPC(t.addr)
	if err != nil {
		return nil, err
	}
	t.conns[i] = c
	return c, nil
}

func (t *crdGRPC) watch(ctx context.Context, conn int, space, rv string, seen func([]byte), cut func()) error {
	cc, err := t.watchConn(conn)
	if err != nil {
		return err
	}
	failures := 0
	// The event received last, held (not copied) until the next arrives:
	// its bytes are scanned for the name the load counts, and for its
	// resourceVersion only when the watch must resume from it.
	ev := &rawEvent{}
	defer ev.release()
	for ctx.Err() == nil {
		var stream grpc.ClientStream
		stream, err = cc.NewStream(ctx, &v1.CustomResources_ServiceDesc.Streams[0], v1.CustomResources_Watch_FullMethodName,
			grpc.WaitForReady(true), grpc.ForceCodecV2(rawCodec{}))
		if err == nil {
			err = stream.SendMsg(&v1.WatchResourcesRequest{Ref: ref(space, ""), Options: &v1.WatchOptions{ResourceVersion: rv}})
		}
		if err == nil {
			err = stream.CloseSend()
		}
		for err == nil {
			if err = stream.RecvMsg(ev); err != nil {
				break
			}
			failures = 0
			if kind, obj := ev.split(); kind != int(v1.EventType_EVENT_TYPE_BOOKMARK) {
				seen(fieldAt(obj, nameMarker))
			}
		}
		// A watch resumes after the last event it received, whatever its
		// type (a failed RecvMsg leaves the last one in ev).
		if _, obj := ev.split(); obj != nil {
			if r := fieldAt(obj, resourceVersionMarker); r != nil {
				rv = string(r)
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		if !errors.Is(err, io.EOF) {
			cut()
		}
		failures++
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Duration(failures) * 20 * time.Millisecond):
		}
		if status.Code(err) == codes.OutOfRange || failures > 3 {
			// The revision left the history: go on from now, the events
			// between are lost (and counted as not delivered).
			if rv, err = t.revision(ctx, space); err != nil {
				return err
			}
			// Resume from now even if the next stream fails before its
			// first event, not from the event held from before.
			ev.release()
		}
	}
	return nil
}

// rawEvent is a WatchEvent's wire bytes, held in the buffer gRPC read
// them into (copied only when they span several): the load needs only its
// type and two fields of its object, so it decodes nothing else (a full
// decode allocates every event's object).
type rawEvent struct {
	held mem.Buffer // the buffer of the last event received, if any
}

// hold keeps data's bytes in e, releasing the event held before.
func (e *rawEvent) hold(data mem.BufferSlice) {
	e.release()
	e.held = data.MaterializeToBuffer(mem.DefaultBufferPool())
}

// release gives the held buffer back to gRPC's pool.
func (e *rawEvent) release() {
	if e.held != nil {
		e.held.Free()
		e.held = nil
	}
}

// split finds the event's type (field 1) and object (field 2) in the bytes.
func (e *rawEvent) split() (kind int, object []byte) {
	if e.held == nil {
		return 0, nil
	}
	b := e.held.ReadOnlyData()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return kind, object
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return kind, object
			}
			kind, b = int(v), b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return kind, object
			}
			object, b = v, b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return kind, object
			}
			b = b[n:]
		}
	}
	return kind, object
}

// rawCodec marshals requests as protobuf and hands a rawEvent the bytes
// of each message received, without decoding them.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return encoding.GetCodecV2(encproto.Name).Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	e, ok := v.(*rawEvent)
	if !ok {
		return encoding.GetCodecV2(encproto.Name).Unmarshal(data, v)
	}
	e.hold(data)
	return nil
}

func (rawCodec) Name() string { return encproto.Name }

func (t *crdGRPC) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.Close()
	}
	t.conns = nil
}

type grpcClient struct {
	t    *crdGRPC
	conn *grpc.ClientConn
	api  v1.CustomResourcesClient
	rv   map[string]string
}

func (c *grpcClient) create(ctx context.Context, space, name string) error {
	resp, err := c.api.Create(ctx, &v1.CreateResourceRequest{Ref: ref(space, ""), Object: object(space, name, 0, "", c.t.size)})
	if err != nil {
		return err
	}
	c.rv[name] = string(field(resp.GetObject(), "resourceVersion"))
	return nil
}

func (c *grpcClient) update(ctx context.Context, space, name string, gen int) error {
	resp, err := c.api.Update(ctx, &v1.UpdateResourceRequest{Ref: ref(space, name), Object: object(space, name, gen, c.rv[name], c.t.size)})
	if err != nil {
		return err
	}
	c.rv[name] = string(field(resp.GetObject(), "resourceVersion"))
	return nil
}

func (c *grpcClient) get(ctx context.Context, space, name string) error {
	_, err := c.api.Get(ctx, &v1.GetResourceRequest{Ref: ref(space, name)})
	return err
}

func (c *grpcClient) list(ctx context.Context, space string, limit int64) (int, error) {
	n, token := 0, ""
	for {
		resp, err := c.api.List(ctx, &v1.ListResourcesRequest{Ref: ref(space, ""), Options: &v1.ListOptions{Limit: limit, ContinueToken: token}})
		if err != nil {
			return n, err
		}
		n += len(resp.GetItems())
		if token = resp.GetContinueToken(); token == "" {
			return n, nil
		}
	}
}

func (c *grpcClient) load(ctx context.Context, space string, names []string) error {
	for _, name := range names {
		if _, err := c.api.Create(ctx, &v1.CreateResourceRequest{Ref: ref(space, ""), Object: object(space, name, 0, "", c.t.size)}); err != nil {
			return err
		}
	}
	return nil
}

func (c *grpcClient) close() { c.conn.Close() }
