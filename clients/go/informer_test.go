package crdstore_test

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	crdstore "github.com/crdstore/crdstore/clients/go"
)

func rvOf(obj crdstore.Object) string {
	return obj["metadata"].(map[string]any)["resourceVersion"].(string)
}

// waitExpired waits until rv has left the server's history: a list at it
// is refused once the history holds no revision at or before it (with
// --history-revisions 1, two writes after it and a compaction).
func waitExpired(t *testing.T, ctx context.Context, widgets *crdstore.Resources, rv string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, err := widgets.List(ctx, crdstore.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Exact"})
		if errors.Is(err, crdstore.ErrExpired) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history was never compacted: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func nextEvents(t *testing.T, watch *crdstore.Watch, n int) [][2]string {
	t.Helper()
	var got [][2]string
	for i := 0; i < n; i++ {
		e, err := watch.Next()
		if err != nil {
			t.Fatalf("event %d: %v (so far %v)", i, err, got)
		}
		got = append(got, [2]string{e.Type, name(e.Object)})
	}
	return got
}

func sorted(events [][2]string) [][2]string {
	out := append([][2]string(nil), events...)
	sort.Slice(out, func(i, j int) bool { return out[i][0]+out[i][1] < out[j][0]+out[j][1] })
	return out
}

func TestWatchThatExpiresWhileObjectsAreDeletedReportsTheDeletions(t *testing.T) {
	s, _, widgets, ctx := setup(t, shortHistory...)
	for _, n := range []string{"keep", "change", "gone1", "gone2"} {
		if _, err := widgets.Create(ctx, widget(n, 1, nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	// From no revision: the current objects as ADDED, then every change.
	watch := widgets.Watch(ctx, crdstore.WatchOptions{})
	defer watch.Stop()
	if got := sorted(nextEvents(t, watch, 4)); len(got) != 4 || got[0] != [2]string{"ADDED", "change"} || got[3] != [2]string{"ADDED", "keep"} {
		t.Fatalf("initial events: %v", got)
	}

	// The watch is away (the server restarts) while two objects are deleted,
	// one changes and one is created, and its revision leaves the history.
	s.restart()
	changed, err := widgets.Patch(ctx, "change", crdstore.MergePatch, map[string]any{"spec": map[string]any{"size": 2}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"gone1", "gone2"} {
		if _, err := widgets.Delete(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := widgets.Create(ctx, widget("new", 1, nil), nil); err != nil {
		t.Fatal(err)
	}
	waitExpired(t, ctx, widgets, rvOf(changed))

	// Replace: the list's changes, then the deletions with their last state.
	got := nextEvents(t, watch, 4)
	if first := sorted(got[:2]); first[0] != [2]string{"ADDED", "new"} || first[1] != [2]string{"MODIFIED", "change"} {
		t.Fatalf("relisted: %v", got)
	}
	if rest := sorted(got[2:]); rest[0] != [2]string{"DELETED", "gone1"} || rest[1] != [2]string{"DELETED", "gone2"} {
		t.Fatalf("deletions: %v", got)
	}
	// And it watches on from the list's revision.
	if _, err := widgets.Delete(ctx, "keep", nil); err != nil {
		t.Fatal(err)
	}
	if got := nextEvents(t, watch, 1); got[0] != [2]string{"DELETED", "keep"} {
		t.Fatalf("after the relist: %v", got)
	}
	if page, err := widgets.List(ctx, crdstore.ListOptions{}); err != nil || len(page.Items) != 2 {
		t.Fatalf("the server after the watch: %v %v", page, err)
	}
}

func TestWatchReportsDeletionsOfTheObjectsItWasGiven(t *testing.T) {
	_, _, widgets, ctx := setup(t, shortHistory...)
	for _, n := range []string{"a", "b"} {
		if _, err := widgets.Create(ctx, widget(n, 1, nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	listed, err := widgets.List(ctx, crdstore.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Delete(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"c", "d"} {
		if _, err := widgets.Create(ctx, widget(n, 1, nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	waitExpired(t, ctx, widgets, listed.ResourceVersion)
	watch := widgets.Watch(ctx, crdstore.WatchOptions{ResourceVersion: listed.ResourceVersion, Objects: listed.Items})
	defer watch.Stop()
	got := nextEvents(t, watch, 3)
	want := [][2]string{{"ADDED", "c"}, {"ADDED", "d"}, {"DELETED", "a"}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
