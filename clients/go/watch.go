package crdstore

import (
	"context"
	"errors"
	"io"
	"sort"
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
	// Objects are those the caller already has (the items of the list whose
	// revision it watches from): after an expiry, the ones gone are
	// returned as DELETED like the ones the watch itself returned.
	Objects []Object
}

// Watch is a stream of events that survives the stream: when it drops
// (the server restarts, the network fails, the server's timeout ends it),
// Next reopens it from the last resourceVersion it returned, so no change
// is missed or repeated. When that revision has left the server's history
// (ErrExpired), Next lists the objects again and brings its caller up to
// date as client-go's reflector does (DeltaFIFO's Replace): ADDED for each
// object it had not returned, MODIFIED for each whose resourceVersion
// changed, then DELETED, with the last state it returned, for each object
// the list no longer has; it then watches on from the list's revision. The
// objects it knows are those it returned and WatchOptions.Objects.
type Watch struct {
	resources    *Resources
	opts         WatchOptions
	ctx          context.Context
	cancel       context.CancelFunc
	stream       grpc.ServerStreamingClient[v1.WatchEvent]
	pending      []Event
	failingSince time.Time
	delay        time.Duration
	// known is what the caller has been told exists, by namespace/name.
	known map[string]Object
}

// Watch starts watching; Stop (or ending ctx) ends it.
func (r *Resources) Watch(ctx context.Context, opts WatchOptions) *Watch {
	if opts.RetryFor == 0 {
		opts.RetryFor = time.Minute
	}
	ctx, cancel := context.WithCancel(ctx)
	known := make(map[string]Object, len(opts.Objects))
	for _, obj := range opts.Objects {
		known[key(obj)] = obj
	}
	return &Watch{resources: r, opts: opts, ctx: ctx, cancel: cancel, delay: 50 * time.Millisecond, known: known}
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
		switch e.Type {
		case "DELETED":
			delete(w.known, key(obj))
		case "ADDED", "MODIFIED":
			w.known[key(obj)] = obj
		}
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
		items, rv, lerr := w.listAll()
		if lerr != nil {
			return lerr
		}
		w.opts.ResourceVersion = rv
		w.pending = append(w.pending, replace(w.known, items)...)
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

// listAll reads every page of the list, at the first page's revision.
func (w *Watch) listAll() ([]Object, string, error) {
	var items []Object
	opts := ListOptions{LabelSelector: w.opts.LabelSelector, FieldSelector: w.opts.FieldSelector, Limit: 500}
	rv := ""
	for {
		page, err := w.resources.List(w.ctx, opts)
		if err != nil {
			return nil, "", err
		}
		items = append(items, page.Items...)
		if rv == "" {
			rv = page.ResourceVersion
		}
		if page.Continue == "" {
			return items, rv, nil
		}
		opts.Continue = page.Continue
	}
}

// key is the key client-go's MetaNamespaceKeyFunc gives an object.
func key(obj Object) string {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if ns, _ := meta["namespace"].(string); ns != "" {
		return ns + "/" + name
	}
	return name
}

func resourceVersion(obj Object) string {
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	return rv
}

// replace returns the events that take a caller from known to listed, and
// updates known to it, as client-go's DeltaFIFO Replace does: the listed
// objects, then a deletion for each known key the list does not have.
func replace(known map[string]Object, listed []Object) []Event {
	var events []Event
	seen := make(map[string]bool, len(listed))
	for _, obj := range listed {
		k := key(obj)
		seen[k] = true
		previous, ok := known[k]
		switch {
		case !ok:
			events = append(events, Event{Type: "ADDED", Object: obj})
		case resourceVersion(previous) != resourceVersion(obj):
			events = append(events, Event{Type: "MODIFIED", Object: obj})
		}
		known[k] = obj
	}
	var gone []string
	for k := range known {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		events = append(events, Event{Type: "DELETED", Object: known[k]})
		delete(known, k)
	}
	return events
}
