package crdstore_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	crdstore "github.com/crdstore/crdstore/clients/go"
)

func TestApplyByTwoManagersConflictsThenForces(t *testing.T) {
	_, _, widgets, ctx := setup(t)
	applied, err := widgets.Apply(ctx, widget("a1", 2, map[string]any{"app": "a"}), crdstore.ApplyOptions{FieldManager: "m1"})
	if err != nil || !applied.Created || fmt.Sprint(spec(applied.Object)["size"]) != "2" {
		t.Fatalf("first apply: %v %#v", err, applied)
	}
	again, err := widgets.Apply(ctx, widget("a1", 2, map[string]any{"app": "a"}), crdstore.ApplyOptions{FieldManager: "m1"})
	if err != nil || again.Created {
		t.Fatalf("second apply: %v %#v", err, again)
	}

	_, err = widgets.Apply(ctx, widget("a1", 5, map[string]any{"app": "a"}), crdstore.ApplyOptions{FieldManager: "m2"})
	var conflict *crdstore.ApplyConflict
	if !errors.As(err, &conflict) {
		t.Fatalf("a second manager's apply: %#v", err)
	}
	want := []crdstore.FieldConflict{{Field: ".spec.size", Manager: "m1", Message: `conflict with "m1"`}}
	if !reflect.DeepEqual(conflict.Conflicts, want) {
		t.Fatalf("conflicts: %#v", conflict.Conflicts)
	}
	var status *crdstore.StatusError
	if !errors.Is(err, crdstore.ErrConflict) || !errors.As(err, &status) || status.Reason != "Conflict" {
		t.Fatalf("an apply conflict is a Conflict too: %#v", err)
	}

	forced, err := widgets.Apply(ctx, widget("a1", 5, map[string]any{"app": "a"}), crdstore.ApplyOptions{FieldManager: "m2", Force: true})
	if err != nil || forced.Created || fmt.Sprint(spec(forced.Object)["size"]) != "5" {
		t.Fatalf("forced apply: %v %#v", err, forced)
	}
	got, err := widgets.Get(ctx, "a1")
	if err != nil || fmt.Sprint(spec(got)["size"]) != "5" {
		t.Fatalf("after force: %v %#v", err, got)
	}

	_, err = widgets.Apply(ctx, widget("a1", 5, map[string]any{"app": "a"}), crdstore.ApplyOptions{})
	if !errors.Is(err, crdstore.ErrInvalid) || !errors.As(err, &status) || len(status.Causes) != 1 || status.Causes[0].Field != "fieldManager" {
		t.Fatalf("apply without a manager: %#v", err)
	}
	// A stale update stays a plain Conflict.
	stale := widget("a1", 6, map[string]any{"app": "a"})
	stale["metadata"].(map[string]any)["resourceVersion"] = "1"
	_, err = widgets.Update(ctx, stale, nil)
	if !errors.Is(err, crdstore.ErrConflict) || errors.As(err, &conflict) {
		t.Fatalf("stale update: %#v", err)
	}
}
