package main

// What the suite asks of a system, whatever its protocol, and the objects
// it writes: the same JSON documents everywhere (etcd stores them as its
// values), so every system moves the same bytes.

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// The definition crdstore serves the objects under.
const (
	group    = "bench.example.com"
	version  = "v1"
	plural   = "widgets"
	kind     = "Widget"
	crdName  = plural + "." + group
	etcdRoot = "/bench/"
)

// definition is a namespaced definition whose objects carry a string
// payload (spec.data) and a counter (spec.gen) that every update changes.
func definition() map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": crdName},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": "widget", "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": version, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"data": map[string]any{"type": "string"},
							"gen":  map[string]any{"type": "integer"},
						},
					}},
				}},
			}},
		},
	}
}

// object is the JSON document of one object, padded to size bytes;
// resourceVersion is set on updates.
func object(space, name string, gen int, resourceVersion string, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"apiVersion":"` + group + "/" + version + `","kind":"` + kind + `","metadata":{"name":`)
	n, _ := json.Marshal(name)
	b.Write(n)
	b.WriteString(`,"namespace":"` + space + `"`)
	if resourceVersion != "" {
		b.WriteString(`,"resourceVersion":"` + resourceVersion + `"`)
	}
	b.WriteString(`},"spec":{"gen":` + strconv.Itoa(gen) + `,"data":"`)
	const tail = `"}}`
	if pad := size - b.Len() - len(tail); pad > 0 {
		b.WriteString(strings.Repeat("x", pad))
	}
	b.WriteString(tail)
	return b.Bytes()
}

// target is one system under load through one protocol.
type target interface {
	// clients opens n load clients, each with its own connection.
	clients(n int) ([]client, error)
	// revision is the current revision, to watch from.
	revision(ctx context.Context, space string) (string, error)
	// watch delivers the name of every object written in space after
	// revision to seen, until ctx ends. When the server cuts the watch off
	// it calls cut and resumes from the last revision it received, as
	// Kubernetes clients do. Watchers with the same conn share a
	// connection where the protocol allows it.
	watch(ctx context.Context, conn int, space, revision string, seen func(name []byte), cut func()) error
	close()
}

// client is one load client. It remembers the revision of each object it
// wrote, so its updates are conditional where the system requires it.
type client interface {
	create(ctx context.Context, space, name string) error
	update(ctx context.Context, space, name string, gen int) error
	get(ctx context.Context, space, name string) error
	// list reads every object of space, in pages of limit (0: whole), and
	// returns how many it read.
	list(ctx context.Context, space string, limit int64) (int, error)
	// load creates the named objects as fast as the system takes them:
	// one transaction where it has them (etcd), else one by one.
	load(ctx context.Context, space string, names []string) error
	close()
}

// field is the string value of the first `"key":"` in a JSON document,
// found without parsing it (the documents here hold no escapes).
func field(doc []byte, key string) []byte {
	return fieldAt(doc, []byte(`"`+key+`":"`))
}

// The markers of the fields a watcher reads from every event, made once.
var (
	nameMarker            = []byte(`"name":"`)
	resourceVersionMarker = []byte(`"resourceVersion":"`)
)

// fieldAt is field with its marker (`"key":"`) made by the caller.
func fieldAt(doc, marker []byte) []byte {
	i := bytes.Index(doc, marker)
	if i < 0 {
		return nil
	}
	v := doc[i+len(marker):]
	end := bytes.IndexByte(v, '"')
	if end < 0 {
		return nil
	}
	return v[:end]
}
