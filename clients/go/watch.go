package crdstore

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"

	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// Event is one watch event: ADDED, MODIFIED, DELETED or BOOKMARK.
type Event struct {
	Type   string
	Object Object
}

// WatchOptions choose what a watch sees and from where.
type WatchOptions struct {
	LabelSelector string
	FieldSelector string
	// ResourceVersion: changes after it; empty means the current objects as
	// ADDED, then every change.
	ResourceVersion string
	// Bookmarks asks for BOOKMARK events, which Next then returns too.
	Bookmarks bool
	// RetryFor is how long Next keeps trying to reach a server that went
	// away before it gives up with ErrUnavailable (default one minute).
	RetryFor time.Duration
}

// Watch is a stream of events that survives the stream: when it drops
// (the server restarts, the network fails, the server's timeout ends it),
// Next reopens it from the last resourceVersion it returned, so no change
// is missed or repeated. When that revision has left the server's history
// (ErrExpired), Next lists the objects again, returns each as ADDED, and
// watches on from the list's revision.
type Watch struct {
	resources    *Resources
	opts         WatchOptions
	ctx          context.Context
	cancel       context.CancelFunc
	stream       grpc.ServerStreamingClient[v1.WatchEvent]
	pending      []Event
	failingSince time.Time
	delay        time.Duration
}

// Watch starts watching; Stop (or ending ctx) ends it.
func (r *Resources) Watch(ctx context.Context, opts WatchOptions) *Watch {
	if opts.RetryFor == 0 {
		opts.RetryFor = time.Minute
	}
	ctx, cancel := context.WithCancel(ctx)
	return &Watch{resources: r, opts: opts, ctx: ctx, cancel: cancel, delay: 50 * time.Millisecond}
}

// ResourceVersion is the revision the watch has reached.
func (w *Watch) ResourceVersion() string { return w.opts.ResourceVersion }

// Stop ends the watch; Next then returns context.Canceled.
func (w *Watch) Stop() { w.cancel() }

var eventTypes = map[v1.EventType]string{
	v1.EventType_EVENT_TYPE_ADDED:    "ADDED",
	v1.EventType_EVENT_TYPE_MODIFIED: "MODIFIED",
	v1.EventType_EVENT_TYPE_DELETED:  "DELETED",
	v1.EventType_EVENT_TYPE_BOOKMARK: "BOOKMARK",
}

// Next blocks until the next event. It returns an error only when the
// watch cannot go on: ctx ended, the request is bad, or the server stayed
// away longer than RetryFor.
func (w *Watch) Next() (Event, error) {
	for {
		if len(w.pending) > 0 {
			e := w.pending[0]
			w.pending = w.pending[1:]
			return e, nil
		}
		if w.stream == nil {
			stream, err := w.resources.client.resources.Watch(w.ctx, w.request(), grpc.WaitForReady(true))
			if err != nil {
				if err := w.failed(err); err != nil {
					return Event{}, err
				}
				continue
			}
			w.stream = stream
		}
		msg, err := w.stream.Recv()
		if errors.Is(err, io.EOF) {
			// The server's timeout ended the stream cleanly: reopen it.
			w.stream = nil
			continue
		}
		if err != nil {
			w.stream = nil
			if err := w.failed(err); err != nil {
				return Event{}, err
			}
			continue
		}
		w.failingSince, w.delay = time.Time{}, 50*time.Millisecond
		obj, err := decode(msg.GetObject())
		if err != nil {
			return Event{}, err
		}
		if meta, ok := obj["metadata"].(map[string]any); ok {
			if rv, ok := meta["resourceVersion"].(string); ok && rv != "" {
				w.opts.ResourceVersion = rv
			}
		}
		e := Event{Type: eventTypes[msg.GetType()], Object: obj}
		if e.Type == "BOOKMARK" && !w.opts.Bookmarks {
			continue
		}
		return e, nil
	}
}

func (w *Watch) request() *v1.WatchResourcesRequest {
	return &v1.WatchResourcesRequest{Ref: w.resources.ref(""), Options: &v1.WatchOptions{
		LabelSelector: w.opts.LabelSelector, FieldSelector: w.opts.FieldSelector,
		ResourceVersion: w.opts.ResourceVersion, AllowBookmarks: w.opts.Bookmarks,
	}}
}

// failed decides what a stream error means: nil to go on (after a relist
// or a pause), or the error that ends the watch.
func (w *Watch) failed(err error) error {
	if w.ctx.Err() != nil {
		return w.ctx.Err()
	}
	err = fromRPC(err)
	switch {
	case errors.Is(err, ErrExpired):
		page, lerr := w.resources.List(w.ctx, ListOptions{LabelSelector: w.opts.LabelSelector, FieldSelector: w.opts.FieldSelector})
		if lerr != nil {
			return lerr
		}
		w.opts.ResourceVersion = page.ResourceVersion
		for _, item := range page.Items {
			w.pending = append(w.pending, Event{Type: "ADDED", Object: item})
		}
		return nil
	case errors.Is(err, ErrUnavailable):
		if w.failingSince.IsZero() {
			w.failingSince = time.Now()
		}
		if time.Since(w.failingSince) > w.opts.RetryFor {
			return err
		}
		select {
		case <-w.ctx.Done():
			return w.ctx.Err()
		case <-time.After(w.delay):
		}
		w.delay = min(w.delay*2, 2*time.Second)
		return nil
	default:
		return err
	}
}
