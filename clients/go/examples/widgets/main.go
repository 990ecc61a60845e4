// Command widgets is the example client of the docker-compose stack: it
// registers a Widget definition, then writes widgets (creates, updates and,
// when it runs for ever, deletes) while a watch prints every change, so a
// fresh `docker compose up` shows live requests, objects and watches in
// Grafana and Jaeger at once.
//
// With -writes N it stops after N writes, once its watch has seen each of
// them, and exits 0 (1 when -timeout ends first): scripts/compose-test runs
// it that way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	crdstore "github.com/crdstore/crdstore/clients/go"
)

func widgetsDefinition() crdstore.Object {
	return crdstore.Object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": crdstore.Object{"name": "widgets.example.com"},
		"spec": crdstore.Object{
			"group": "example.com", "scope": "Namespaced",
			"names": crdstore.Object{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{crdstore.Object{
				"name": "v1", "served": true, "storage": true,
				"schema": crdstore.Object{"openAPIV3Schema": crdstore.Object{
					"type": "object",
					"properties": crdstore.Object{"spec": crdstore.Object{
						"type": "object",
						"properties": crdstore.Object{
							"size":  crdstore.Object{"type": "integer", "minimum": 0, "maximum": 10},
							"color": crdstore.Object{"type": "string", "enum": []any{"red", "green", "blue"}},
						},
					}},
				}},
			}},
		},
	}
}

var colors = []string{"red", "green", "blue"}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// seen records what the watch has shown, so a finite run can wait for the
// event of each of its writes: "ADDED/name/resourceVersion", and so on.
type seen struct {
	mu      sync.Mutex
	events  map[string]bool
	changed chan struct{}
}

func (s *seen) add(key string) {
	s.mu.Lock()
	s.events[key] = true
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *seen) missing(keys []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, k := range keys {
		if !s.events[k] {
			out = append(out, k)
		}
	}
	return out
}

func meta(obj crdstore.Object) (name, rv string) {
	m, _ := obj["metadata"].(map[string]any)
	name, _ = m["name"].(string)
	rv, _ = m["resourceVersion"].(string)
	return name, rv
}

func main() {
	server := flag.String("server", env("CRDSTORE_GRPC_ADDR", "localhost:50051"), "crdstore's gRPC address (CRDSTORE_GRPC_ADDR)")
	namespace := flag.String("namespace", "default", "the namespace of the widgets")
	objects := flag.Int("objects", 5, "how many widgets exist at most")
	interval := flag.Duration("interval", time.Second, "the pause between writes")
	writes := flag.Int("writes", 0, "stop after this many writes, once the watch has seen them (0: run until stopped)")
	timeout := flag.Duration("timeout", time.Minute, "with -writes, fail when it takes longer than this")
	flag.Parse()
	if err := run(*server, *namespace, *objects, *interval, *writes, *timeout); err != nil {
		log.Printf("widgets: %v", err)
		os.Exit(1)
	}
}

func run(server, namespace string, objects int, interval time.Duration, writes int, timeout time.Duration) error {
	if objects < 1 {
		return errors.New("-objects must be at least 1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if writes > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	client, err := crdstore.Dial(server)
	if err != nil {
		return err
	}
	defer func() { _ = client.Close() }()
	// Calls wait for a server that is not up yet, until ctx ends.
	if _, err := client.Definitions.Create(ctx, widgetsDefinition(), nil); err != nil && !errors.Is(err, crdstore.ErrAlreadyExists) {
		return fmt.Errorf("creating the definition: %w", err)
	}
	if _, err := client.Definitions.WaitEstablished(ctx, "widgets.example.com"); err != nil {
		return err
	}
	log.Printf("definition widgets.example.com is established on %s", server)
	widgets := client.Resources("example.com", "v1", "widgets", namespace)

	// The watch starts with the widgets that exist (ADDED), then every change.
	got := &seen{events: map[string]bool{}, changed: make(chan struct{}, 1)}
	watch := widgets.Watch(ctx, crdstore.WatchOptions{})
	defer watch.Stop()
	watchDone := make(chan error, 1)
	go func() {
		for {
			event, err := watch.Next()
			if err != nil {
				watchDone <- err
				return
			}
			name, rv := meta(event.Object)
			spec, _ := event.Object["spec"].(map[string]any)
			log.Printf("watch: %-8s %s resourceVersion=%s spec=%v", event.Type, name, rv, spec)
			got.add(event.Type + "/" + name + "/" + rv)
		}
	}()

	var expected []string
	for i := 0; writes == 0 || i < writes; i++ {
		name := fmt.Sprintf("widget-%d", i%objects)
		key, err := write(ctx, widgets, name, i, writes == 0)
		if err != nil {
			if ctx.Err() != nil && writes == 0 {
				return nil // stopped
			}
			return fmt.Errorf("writing %s: %w", name, err)
		}
		log.Printf("wrote:  %s", key)
		if writes > 0 {
			expected = append(expected, key)
		}
		if writes > 0 && i == writes-1 {
			break
		}
		select {
		case <-ctx.Done():
			if writes == 0 {
				return nil
			}
			return ctx.Err()
		case <-time.After(interval):
		}
	}

	for {
		missing := got.missing(expected)
		if len(missing) == 0 {
			log.Printf("the watch saw all %d writes", len(expected))
			return nil
		}
		select {
		case <-got.changed:
		case err := <-watchDone:
			return fmt.Errorf("the watch ended before it saw %v: %w", missing, err)
		case <-ctx.Done():
			return fmt.Errorf("the watch did not see %v: %w", missing, ctx.Err())
		}
	}
}

// write creates the widget when it is missing, else updates its size and
// color; when deletes is set, every fourth write of a widget deletes it. It
// returns the event the watch will show for it.
func write(ctx context.Context, widgets *crdstore.Resources, name string, i int, deletes bool) (string, error) {
	spec := crdstore.Object{"size": i % 11, "color": colors[i%len(colors)]}
	current, err := widgets.Get(ctx, name)
	switch {
	case errors.Is(err, crdstore.ErrNotFound):
		created, err := widgets.Create(ctx, crdstore.Object{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": crdstore.Object{"name": name, "labels": crdstore.Object{"app": "widgets-example"}},
			"spec":     spec,
		}, nil)
		if err != nil {
			return "", err
		}
		_, rv := meta(created)
		return "ADDED/" + name + "/" + rv, nil
	case err != nil:
		return "", err
	case deletes && i%4 == 3:
		deleted, err := widgets.Delete(ctx, name, nil)
		if err != nil {
			return "", err
		}
		_, rv := meta(deleted.Object)
		return "DELETED/" + name + "/" + rv, nil
	}
	var updated crdstore.Object
	err = crdstore.RetryOnConflict(ctx, 5, func() error {
		current["spec"] = spec
		updated, err = widgets.Update(ctx, current, nil)
		if errors.Is(err, crdstore.ErrConflict) {
			current, _ = widgets.Get(ctx, name)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	_, rv := meta(updated)
	return "MODIFIED/" + name + "/" + rv, nil
}
