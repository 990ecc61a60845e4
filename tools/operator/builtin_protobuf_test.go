package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The real typed clientset (kubernetes.Clientset), which negotiates
// protobuf, creates, reads, lists, watches and deletes a Namespace, a Lease
// and both Events against the built binary; every answer it gets is
// protobuf, which a recording transport proves (client-go would quietly
// decode a JSON fallback too).

const protobuf = "application/vnd.kubernetes.protobuf"

type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.Path+" -> "+resp.Header.Get("Content-Type"))
		r.mu.Unlock()
	}
	return resp, err
}

func clientset(t *testing.T) (*kubernetes.Clientset, *recorder) {
	addr := startCrdstore(t)
	rec := &recorder{}
	config := &rest.Config{
		Host: "http://" + addr,
		ContentConfig: rest.ContentConfig{
			ContentType:        protobuf,
			AcceptContentTypes: protobuf + ",application/json",
		},
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec },
	}
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	return cs, rec
}

// lifecycle runs create, get, list, watch and delete through typed calls.
func lifecycle(t *testing.T, rec *recorder, name string,
	create func(context.Context) (runtime.Object, error),
	get func(context.Context) error,
	list func(context.Context) (int, string, error),
	watchFrom func(context.Context, string) (watch.Interface, error),
	del func(context.Context) error,
) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, revision, err := list(ctx)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	w, err := watchFrom(ctx, revision)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	defer w.Stop()
	if _, err := create(ctx); err != nil {
		t.Fatalf("create: %v", err)
	}
	if err := get(ctx); err != nil {
		t.Fatalf("get: %v", err)
	}
	if n, _, err := list(ctx); err != nil || n == 0 {
		t.Fatalf("list after create: %d items, %v", n, err)
	}
	select {
	case event := <-w.ResultChan():
		if event.Type != watch.Added {
			t.Fatalf("watch: %v %#v", event.Type, event.Object)
		}
		accessor, err := apimeta.Accessor(event.Object)
		if err != nil || accessor.GetName() != name {
			t.Fatalf("watch: %#v %v", event.Object, err)
		}
	case <-time.After(wait):
		t.Fatal("no watch event")
	}
	if err := del(ctx); err != nil {
		t.Fatalf("delete: %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, seen := range rec.seen {
		if !strings.HasSuffix(seen, protobuf) && !strings.HasSuffix(seen, protobuf+";stream=watch") {
			t.Errorf("not protobuf: %s", seen)
		}
	}
}

func TestTypedClientsetSpeaksProtobufForBuiltinKinds(t *testing.T) {
	cs, rec := clientset(t)
	meta := metav1.ObjectMeta{Name: "pb", Namespace: "default"}
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p", APIVersion: "v1"}

	t.Run("Namespace", func(t *testing.T) {
		c := cs.CoreV1().Namespaces()
		lifecycle(t, rec, "pb",
			func(ctx context.Context) (runtime.Object, error) {
				return c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pb"}}, metav1.CreateOptions{})
			},
			func(ctx context.Context) error { _, err := c.Get(ctx, "pb", metav1.GetOptions{}); return err },
			func(ctx context.Context) (int, string, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return 0, "", err
				}
				return len(l.Items), l.ResourceVersion, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(ctx context.Context) error { return c.Delete(ctx, "pb", metav1.DeleteOptions{}) })
	})

	t.Run("Lease", func(t *testing.T) {
		c := cs.CoordinationV1().Leases("default")
		holder, seconds := "me", int32(15)
		lifecycle(t, rec, "pb",
			func(ctx context.Context) (runtime.Object, error) {
				return c.Create(ctx, &coordinationv1.Lease{ObjectMeta: meta,
					Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds}}, metav1.CreateOptions{})
			},
			func(ctx context.Context) error { _, err := c.Get(ctx, "pb", metav1.GetOptions{}); return err },
			func(ctx context.Context) (int, string, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return 0, "", err
				}
				return len(l.Items), l.ResourceVersion, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(ctx context.Context) error { return c.Delete(ctx, "pb", metav1.DeleteOptions{}) })
	})

	t.Run("core/v1 Event", func(t *testing.T) {
		c := cs.CoreV1().Events("default")
		now := metav1.NewTime(time.Now())
		lifecycle(t, rec, "pb",
			func(ctx context.Context) (runtime.Object, error) {
				return c.Create(ctx, &corev1.Event{ObjectMeta: meta, InvolvedObject: ref, Reason: "Started",
					Message: "started", Source: corev1.EventSource{Component: "kubelet"}, FirstTimestamp: now,
					LastTimestamp: now, Count: 1, Type: "Normal"}, metav1.CreateOptions{})
			},
			func(ctx context.Context) error { _, err := c.Get(ctx, "pb", metav1.GetOptions{}); return err },
			func(ctx context.Context) (int, string, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return 0, "", err
				}
				return len(l.Items), l.ResourceVersion, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(ctx context.Context) error { return c.Delete(ctx, "pb", metav1.DeleteOptions{}) })
	})

	t.Run("events.k8s.io/v1 Event", func(t *testing.T) {
		c := cs.EventsV1().Events("default")
		lifecycle(t, rec, "pb2",
			func(ctx context.Context) (runtime.Object, error) {
				m := meta
				m.Name = "pb2"
				return c.Create(ctx, &eventsv1.Event{ObjectMeta: m, EventTime: metav1.NewMicroTime(time.Now()),
					ReportingController: "example.com/controller", ReportingInstance: "controller-1",
					Action: "Start", Reason: "Started", Regarding: ref, Note: "started", Type: "Normal"}, metav1.CreateOptions{})
			},
			func(ctx context.Context) error { _, err := c.Get(ctx, "pb2", metav1.GetOptions{}); return err },
			func(ctx context.Context) (int, string, error) {
				l, err := c.List(ctx, metav1.ListOptions{})
				if err != nil {
					return 0, "", err
				}
				return len(l.Items), l.ResourceVersion, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return c.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(ctx context.Context) error { return c.Delete(ctx, "pb2", metav1.DeleteOptions{}) })
	})
}
