package main

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
)

// client-go's event recorder, as every controller uses it: the first
// occurrence of an event is created, each repeat folds into the same Event
// by a strategic merge patch of its count. A server that refuses the patch
// makes the recorder drop every repeat ("Server rejected event (will not
// retry!)").
func TestEventRecorderFoldsRepeatsIntoOneEvent(t *testing.T) {
	base := startCrdstore(t)
	clients, err := kubernetes.NewForConfig(&rest.Config{Host: "http://" + base})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns, err := clients.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "recorded"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	broadcaster := record.NewBroadcaster()
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: clients.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "recorder-test"})
	for range 3 {
		recorder.Event(ns, corev1.EventTypeNormal, "Checked", "the namespace was checked")
	}
	var events *corev1.EventList
	eventually(t, "one Event with count 3", func() bool {
		events, err = clients.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		return err == nil && len(events.Items) == 1 && events.Items[0].Count == 3
	})
	event := events.Items[0]
	if event.Reason != "Checked" || event.InvolvedObject.Name != "recorded" || event.Source.Component != "recorder-test" {
		t.Fatalf("the event is not the one recorded: %+v", event)
	}
	if !event.LastTimestamp.After(event.FirstTimestamp.Time) && !event.LastTimestamp.Equal(&event.FirstTimestamp) {
		t.Fatalf("lastTimestamp %v is before firstTimestamp %v", event.LastTimestamp, event.FirstTimestamp)
	}
}
