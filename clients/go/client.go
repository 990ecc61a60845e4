// Package crdstore is a Go client for crdstore, the standalone store of
// Kubernetes-style custom resources.
//
// The code in crdstorev1 is generated from the protos (scripts/generate-clients);
// this package is a thin layer over it: objects in and out as JSON maps,
// errors that work with errors.Is and errors.As, a watch that resumes after
// a dropped stream, and RetryOnConflict for read-modify-write loops.
//
//	client, err := crdstore.Dial("localhost:50051")
//	widgets := client.Resources("example.com", "v1", "widgets", "default")
//	created, err := widgets.Create(ctx, crdstore.Object{"apiVersion": "example.com/v1", ...})
package crdstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// Object is a Kubernetes object as JSON: apiVersion, kind, metadata, spec...
type Object = map[string]any

// Client is a connection to one crdstore server. It is safe for concurrent use.
type Client struct {
	conn        *grpc.ClientConn
	definitions v1.CustomResourceDefinitionsClient
	resources   v1.CustomResourcesClient
	migrations  v1.StorageVersionMigrationsClient
	// Definitions manages resource definitions.
	Definitions *Definitions
	// Migrations starts and follows storage-version migrations.
	Migrations *Migrations
	// Warn receives the warnings the server returns with successful writes
	// (unknown fields, ...). By default they are logged.
	Warn func(warning string)
}

// The flow-control windows Dial sets: a stream may have 4 MiB in flight
// (a page of a list, a burst of watch events), a connection 16 MiB.
const (
	streamWindow     = 4 << 20
	connectionWindow = 16 << 20
)

// WindowOptions are the flow-control settings Dial uses: fixed windows,
// large enough for list pages and watch bursts. Fixed windows turn off
// grpc-go's bandwidth-delay probing, which answers nearly every response
// with a PING that the server must answer in a write of its own: on a
// request-response load that doubles the server's writes and the
// client's reads.
func WindowOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithStaticStreamWindowSize(streamWindow), grpc.WithStaticConnWindowSize(connectionWindow)}
}

// Dial connects to a crdstore server at target ("localhost:50051"),
// without TLS unless opts say otherwise, with WindowOptions unless opts
// set the windows. Calls made while the server is away (restarting, say)
// wait for it until their context ends.
func Dial(target string, opts ...grpc.DialOption) (*Client, error) {
	defaults := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, WindowOptions()...)
	opts = append(defaults, opts...)
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, err
	}
	c := &Client{
		conn:        conn,
		definitions: v1.NewCustomResourceDefinitionsClient(conn),
		resources:   v1.NewCustomResourcesClient(conn),
		migrations:  v1.NewStorageVersionMigrationsClient(conn),
		Warn:        func(w string) { log.Printf("crdstore warning: %s", w) },
	}
	c.Definitions = &Definitions{client: c}
	c.Migrations = &Migrations{client: c}
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Resources is the objects of one resource type at one version; namespace
// is the default for calls on namespaced resources ("" for cluster-scoped
// ones, or to list and watch all namespaces).
func (c *Client) Resources(group, version, resource, namespace string) *Resources {
	return &Resources{client: c, group: group, version: version, resource: resource, namespace: namespace}
}

// call runs one unary call: its error becomes a *StatusError, its
// warnings go to Warn.
func call[Req, Resp any](c *Client, ctx context.Context, method func(context.Context, Req, ...grpc.CallOption) (Resp, error), req Req) (Resp, error) {
	var header metadata.MD
	resp, err := method(ctx, req, grpc.WaitForReady(true), grpc.Header(&header))
	if err != nil {
		return resp, fromRPC(err)
	}
	if c.Warn != nil {
		for _, w := range header.Get("warning") {
			c.Warn(w)
		}
	}
	return resp, nil
}

func encode(obj Object) ([]byte, error) { return json.Marshal(obj) }

func decode(data []byte) (Object, error) {
	var obj Object
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("crdstore: the server sent an object that is not JSON: %w", err)
	}
	return obj, nil
}

// WriteOptions are the options of every write.
type WriteOptions struct {
	// DryRun validates and answers without persisting.
	DryRun bool
	// FieldValidation is "Ignore", "Warn" (the default) or "Strict".
	FieldValidation string
	// FieldManager names the actor making the change.
	FieldManager string
}

func (o *WriteOptions) proto() (*v1.WriteOptions, error) {
	if o == nil {
		return nil, nil
	}
	fv := map[string]v1.FieldValidation{
		"":       v1.FieldValidation_FIELD_VALIDATION_UNSPECIFIED,
		"Ignore": v1.FieldValidation_FIELD_VALIDATION_IGNORE,
		"Warn":   v1.FieldValidation_FIELD_VALIDATION_WARN,
		"Strict": v1.FieldValidation_FIELD_VALIDATION_STRICT,
	}
	v, ok := fv[o.FieldValidation]
	if !ok {
		return nil, fmt.Errorf("crdstore: FieldValidation must be Ignore, Warn or Strict, not %q", o.FieldValidation)
	}
	return &v1.WriteOptions{DryRun: o.DryRun, FieldValidation: v, FieldManager: o.FieldManager}, nil
}

// ListOptions select and page a list.
type ListOptions struct {
	LabelSelector   string
	FieldSelector   string
	Limit           int64
	Continue        string
	ResourceVersion string
	// ResourceVersionMatch is "", "NotOlderThan" or "Exact", as in Kubernetes.
	ResourceVersionMatch string
}

func (o ListOptions) check() error {
	switch o.ResourceVersionMatch {
	case "", "NotOlderThan", "Exact":
		return nil
	}
	return fmt.Errorf("crdstore: ResourceVersionMatch must be NotOlderThan or Exact, not %q", o.ResourceVersionMatch)
}

func (o ListOptions) proto() *v1.ListOptions {
	match := map[string]v1.ResourceVersionMatch{
		"NotOlderThan": v1.ResourceVersionMatch_RESOURCE_VERSION_MATCH_NOT_OLDER_THAN,
		"Exact":        v1.ResourceVersionMatch_RESOURCE_VERSION_MATCH_EXACT,
	}[o.ResourceVersionMatch]
	return &v1.ListOptions{
		LabelSelector: o.LabelSelector, FieldSelector: o.FieldSelector, Limit: o.Limit,
		ContinueToken: o.Continue, ResourceVersion: o.ResourceVersion, ResourceVersionMatch: match,
	}
}

// Page is one page of a list. Continue is empty on the last page.
type Page struct {
	Items              []Object
	ResourceVersion    string
	Continue           string
	RemainingItemCount int64
}

func page(items [][]byte, rv, next string, remaining int64) (*Page, error) {
	p := &Page{ResourceVersion: rv, Continue: next, RemainingItemCount: remaining}
	for _, item := range items {
		obj, err := decode(item)
		if err != nil {
			return nil, err
		}
		p.Items = append(p.Items, obj)
	}
	return p, nil
}

// Deleted is a delete's outcome: the object's last state, and whether it
// is gone (false while finalizers hold it).
type Deleted struct {
	Object  Object
	Deleted bool
}

// RetryOnConflict runs a read-modify-write fn again while it fails with
// ErrConflict, up to attempts times, backing off between attempts; fn must
// read the object afresh each time.
func RetryOnConflict(ctx context.Context, attempts int, fn func() error) error {
	backoff := 10 * time.Millisecond
	var err error
	for i := 0; i < attempts; i++ {
		if err = fn(); !errors.Is(err, ErrConflict) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff *= 2
	}
	return err
}
