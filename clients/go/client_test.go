package crdstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	crdstore "github.com/crdstore/crdstore/clients/go"
)

func widgetsDefinition() crdstore.Object {
	return crdstore.Object{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{"spec": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"size":  map[string]any{"type": "integer", "maximum": 10},
							"color": map[string]any{"type": "string"},
						},
					}},
				}},
			}},
		},
	}
}

func widget(name string, size int, labels map[string]any) crdstore.Object {
	return crdstore.Object{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "labels": labels},
		"spec":     map[string]any{"size": size},
	}
}

func setup(t *testing.T, flags ...string) (*server, *crdstore.Client, *crdstore.Resources, context.Context) {
	s := startServer(t, flags...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	client, err := crdstore.Dial(s.grpc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	if _, err := client.Definitions.Create(ctx, widgetsDefinition(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Definitions.WaitEstablished(ctx, "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	return s, client, client.Resources("example.com", "v1", "widgets", "default"), ctx
}

func spec(obj crdstore.Object) map[string]any { return obj["spec"].(map[string]any) }

func name(obj crdstore.Object) string { return obj["metadata"].(map[string]any)["name"].(string) }

func TestDefinitionsAndTypedErrors(t *testing.T) {
	_, client, _, ctx := setup(t)
	_, err := client.Definitions.Create(ctx, widgetsDefinition(), nil)
	if !errors.Is(err, crdstore.ErrAlreadyExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := client.Definitions.Get(ctx, "gadgets.example.com"); !errors.Is(err, crdstore.ErrNotFound) {
		t.Fatalf("get of a missing definition: %v", err)
	}
	bad := widgetsDefinition()
	bad["metadata"] = map[string]any{"name": "wrong.example.com"}
	_, err = client.Definitions.Create(ctx, bad, nil)
	var status *crdstore.StatusError
	if !errors.As(err, &status) || status.Reason != "Invalid" || len(status.Causes) == 0 || status.Causes[0].Field != "metadata.name" {
		t.Fatalf("invalid definition: %#v", err)
	}
}

func TestListFeatureGates(t *testing.T) {
	_, client, _, ctx := setup(t)
	gated := widgetsDefinition()
	gated["metadata"] = map[string]any{"name": "gizmos.example.com"}
	gatedSpec := gated["spec"].(map[string]any)
	gatedSpec["names"] = map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"}
	gatedSpec["customFeatureGates"] = map[string]any{
		"component":    "istio",
		"featureGates": []any{map[string]any{"name": "SizeGate", "preRelease": "alpha", "fieldPaths": []any{".spec.size"}}},
	}
	if _, err := client.Definitions.Create(ctx, gated, nil); err != nil {
		t.Fatal(err)
	}
	gates, err := client.Definitions.ListFeatureGates(ctx, "", "istio")
	if err != nil || len(gates) != 1 {
		t.Fatalf("list: %v %v", gates, err)
	}
	g := gates[0]
	if g.Definition != "gizmos.example.com" || g.Name != "SizeGate" || g.Stage != "alpha" || g.Default || g.Enabled != nil || g.Effective || len(g.Paths) != 1 || g.Paths[0] != ".spec.size" {
		t.Fatalf("gate: %+v", g)
	}
	none, err := client.Definitions.ListFeatureGates(ctx, "nothing.example.com", "")
	if err != nil || len(none) != 0 {
		t.Fatalf("filtered: %v %v", none, err)
	}
}

func TestCreateGetUpdatePatchDelete(t *testing.T) {
	_, client, widgets, ctx := setup(t)
	created, err := widgets.Create(ctx, widget("w1", 3, map[string]any{"app": "web"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := widgets.Get(ctx, "w1")
	if err != nil || spec(got)["size"] != float64(3) {
		t.Fatalf("get: %v %v", got, err)
	}
	_, err = widgets.Create(ctx, widget("w2", 50, nil), nil)
	var status *crdstore.StatusError
	if !errors.As(err, &status) || !errors.Is(err, crdstore.ErrInvalid) || len(status.Causes) != 1 || status.Causes[0].Field != "spec.size" {
		t.Fatalf("invalid create: %#v", err)
	}

	update := widget("w1", 4, nil)
	update["metadata"] = created["metadata"]
	if _, err := widgets.Update(ctx, update, nil); err != nil {
		t.Fatal(err)
	}
	stale := widget("w1", 5, nil)
	stale["metadata"] = created["metadata"]
	if _, err := widgets.Update(ctx, stale, nil); !errors.Is(err, crdstore.ErrConflict) {
		t.Fatalf("stale update: %v", err)
	}

	patched, err := widgets.Patch(ctx, "w1", crdstore.MergePatch, map[string]any{"spec": map[string]any{"color": "red"}}, "", nil)
	if err != nil || spec(patched)["color"] != "red" || spec(patched)["size"] != float64(4) {
		t.Fatalf("merge patch: %v %v", patched, err)
	}
	ops := []map[string]any{{"op": "replace", "path": "/spec/size", "value": 6}}
	patched, err = widgets.Patch(ctx, "w1", crdstore.JSONPatch, ops, "", nil)
	if err != nil || spec(patched)["size"] != float64(6) {
		t.Fatalf("json patch: %v %v", patched, err)
	}

	var warnings []string
	client.Warn = func(w string) { warnings = append(warnings, w) }
	if _, err := widgets.Patch(ctx, "w1", crdstore.MergePatch, map[string]any{"spec": map[string]any{"extra": 1}}, "", nil); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `unknown field "spec.extra"`) {
		t.Fatalf("warnings: %q", warnings)
	}

	gone, err := widgets.Delete(ctx, "w1", nil)
	if err != nil || !gone.Deleted {
		t.Fatalf("delete: %v %v", gone, err)
	}
	if _, err := widgets.Get(ctx, "w1"); !errors.Is(err, crdstore.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
}

func owned(name string, owner map[string]any) map[string]any {
	obj := widget(name, 1, nil)
	meta := owner["metadata"].(map[string]any)
	obj["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget", "name": meta["name"], "uid": meta["uid"], "blockOwnerDeletion": true,
	}}
	return obj
}

func waitGone(t *testing.T, ctx context.Context, widgets *crdstore.Resources, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := widgets.Get(ctx, name); errors.Is(err, crdstore.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was never deleted", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeleteTakesThePropagationPolicy(t *testing.T) {
	_, _, widgets, ctx := setup(t)
	owner, err := widgets.Create(ctx, widget("orphaner", 1, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Create(ctx, owned("orphan", owner), nil); err != nil {
		t.Fatal(err)
	}
	answer, err := widgets.Delete(ctx, "orphaner", &crdstore.DeleteOptions{PropagationPolicy: "Orphan"})
	if err != nil || answer.Deleted || fmt.Sprint(answer.Object["metadata"].(map[string]any)["finalizers"]) != "[orphan]" {
		t.Fatalf("orphan delete: %v %v", answer, err)
	}
	waitGone(t, ctx, widgets, "orphaner")
	kept, err := widgets.Get(ctx, "orphan")
	if err != nil || kept["metadata"].(map[string]any)["ownerReferences"] != nil {
		t.Fatalf("orphaned: %v %v", kept, err)
	}

	owner, err = widgets.Create(ctx, widget("parent", 1, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Create(ctx, owned("child", owner), nil); err != nil {
		t.Fatal(err)
	}
	answer, err = widgets.Delete(ctx, "parent", &crdstore.DeleteOptions{PropagationPolicy: "Foreground"})
	if err != nil || answer.Deleted || fmt.Sprint(answer.Object["metadata"].(map[string]any)["finalizers"]) != "[foregroundDeletion]" {
		t.Fatalf("foreground delete: %v %v", answer, err)
	}
	waitGone(t, ctx, widgets, "parent")
	waitGone(t, ctx, widgets, "child")
}

func TestListWithSelectorAndPages(t *testing.T) {
	_, _, widgets, ctx := setup(t)
	for i := 0; i < 7; i++ {
		tier := "b"
		if i%2 == 1 {
			tier = "a"
		}
		if _, err := widgets.Create(ctx, widget(fmt.Sprintf("w%d", i), 1, map[string]any{"tier": tier}), nil); err != nil {
			t.Fatal(err)
		}
	}
	first, err := widgets.List(ctx, crdstore.ListOptions{LabelSelector: "tier=a", Limit: 2})
	if err != nil || len(first.Items) != 2 || name(first.Items[0]) != "w1" || name(first.Items[1]) != "w3" || first.Continue == "" {
		t.Fatalf("first page: %+v %v", first, err)
	}
	rest, err := widgets.List(ctx, crdstore.ListOptions{LabelSelector: "tier=a", Limit: 2, Continue: first.Continue})
	if err != nil || len(rest.Items) != 1 || name(rest.Items[0]) != "w5" || rest.Continue != "" {
		t.Fatalf("last page: %+v %v", rest, err)
	}
	if _, err := widgets.List(ctx, crdstore.ListOptions{LabelSelector: "tier in ("}); !errors.Is(err, crdstore.ErrBadRequest) {
		t.Fatalf("bad selector: %v", err)
	}
}

func TestRetryOnConflictRereadsAndRetries(t *testing.T) {
	_, _, widgets, ctx := setup(t)
	if _, err := widgets.Create(ctx, widget("counter", 1, nil), nil); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	err := crdstore.RetryOnConflict(ctx, 5, func() error {
		current, err := widgets.Get(ctx, "counter")
		if err != nil {
			return err
		}
		if attempts == 0 {
			// Someone else writes between our read and our write.
			if _, err := widgets.Patch(ctx, "counter", crdstore.MergePatch, map[string]any{"spec": map[string]any{"color": "blue"}}, "", nil); err != nil {
				return err
			}
		}
		attempts++
		spec(current)["size"] = spec(current)["size"].(float64) + 1
		_, err = widgets.Update(ctx, current, nil)
		return err
	})
	final, _ := widgets.Get(ctx, "counter")
	if err != nil || attempts != 2 || spec(final)["size"] != float64(2) || spec(final)["color"] != "blue" {
		t.Fatalf("retry: %v after %d attempts, %v", err, attempts, final)
	}
}

func TestWatchSeesChangesAndResumesAfterARestart(t *testing.T) {
	s, _, widgets, ctx := setup(t)
	before, err := widgets.Create(ctx, widget("before", 1, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	rv := before["metadata"].(map[string]any)["resourceVersion"].(string)
	watch := widgets.Watch(ctx, crdstore.WatchOptions{ResourceVersion: rv})
	defer watch.Stop()
	expect := func(kind, want string) crdstore.Event {
		t.Helper()
		e, err := watch.Next()
		if err != nil || e.Type != kind || name(e.Object) != want {
			t.Fatalf("want %s %s, got %s %v (%v)", kind, want, e.Type, e.Object, err)
		}
		return e
	}
	if _, err := widgets.Create(ctx, widget("w1", 1, nil), nil); err != nil {
		t.Fatal(err)
	}
	expect("ADDED", "w1")
	if _, err := widgets.Patch(ctx, "w1", crdstore.MergePatch, map[string]any{"spec": map[string]any{"size": 2}}, "", nil); err != nil {
		t.Fatal(err)
	}
	if e := expect("MODIFIED", "w1"); spec(e.Object)["size"] != float64(2) {
		t.Fatalf("modified: %v", e.Object)
	}

	s.restart()
	if _, err := widgets.Create(ctx, widget("w2", 1, nil), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Delete(ctx, "w1", nil); err != nil {
		t.Fatal(err)
	}
	// Resumed from the last revision seen: nothing replayed, nothing lost.
	expect("ADDED", "w2")
	expect("DELETED", "w1")
}

func TestWatchListsAgainWhenItsRevisionHasExpired(t *testing.T) {
	_, _, widgets, ctx := setup(t, shortHistory...)
	first, err := widgets.Create(ctx, widget("w0", 1, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 4; i++ {
		if _, err := widgets.Create(ctx, widget(fmt.Sprintf("w%d", i), 1, nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	rv := first["metadata"].(map[string]any)["resourceVersion"].(string)
	// The first create's revision leaves the history at the next compaction.
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, err := widgets.List(ctx, crdstore.ListOptions{ResourceVersion: rv, ResourceVersionMatch: "Exact"})
		if errors.Is(err, crdstore.ErrExpired) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the history was never compacted: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	watch := widgets.Watch(ctx, crdstore.WatchOptions{ResourceVersion: rv})
	defer watch.Stop()
	for i := 0; i < 4; i++ {
		e, err := watch.Next()
		if err != nil || e.Type != "ADDED" || name(e.Object) != fmt.Sprintf("w%d", i) {
			t.Fatalf("relisted event %d: %s %v (%v)", i, e.Type, e.Object, err)
		}
	}
	if _, err := widgets.Create(ctx, widget("w4", 1, nil), nil); err != nil {
		t.Fatal(err)
	}
	if e, err := watch.Next(); err != nil || e.Type != "ADDED" || name(e.Object) != "w4" {
		t.Fatalf("after the relist: %s %v (%v)", e.Type, e.Object, err)
	}
}

// The README's Go example, run as a program against a real server.
func TestReadmeExampleRuns(t *testing.T) {
	s := startServer(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no Go example")
	}
	dir := t.TempDir()
	here, _ := filepath.Abs(".")
	program := strings.Replace(string(m[1]), `"localhost:50051"`, fmt.Sprintf("%q", s.grpc), 1)
	goMod := fmt.Sprintf("module example\n\ngo 1.26\n\nrequire github.com/crdstore/crdstore/clients/go v0.0.0\n\nreplace github.com/crdstore/crdstore/clients/go => %s\n", here)
	sum, _ := os.ReadFile("go.sum")
	for file, content := range map[string]string{"main.go": program, "go.mod": goMod, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", "-mod=mod", ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "size 4") {
		t.Fatalf("README example: %v\n%s", err, out)
	}
}

func TestMigrationBringsEveryObjectToTheNewStorageVersion(t *testing.T) {
	_, client, widgets, ctx := setup(t)
	for i := 0; i < 20; i++ {
		if _, err := widgets.Create(ctx, widget(fmt.Sprintf("w%d", i), i%10, nil), nil); err != nil {
			t.Fatal(err)
		}
	}
	definition, err := client.Definitions.Get(ctx, "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	versions := spec(definition)["versions"].([]any)
	v1 := versions[0].(map[string]any)
	v2 := map[string]any{}
	for k, v := range v1 {
		v2[k] = v
	}
	v1["storage"], v2["name"], v2["storage"] = false, "v2", true
	spec(definition)["versions"] = []any{v1, v2}
	if _, err := client.Definitions.Update(ctx, definition, nil); err != nil {
		t.Fatal(err)
	}

	steps := 0
	done, err := client.Migrations.Run(ctx, "widgets.example.com", "to-v2", func(*crdstore.Migration) { steps++ })
	if err != nil {
		t.Fatal(err)
	}
	if done.Phase != "Succeeded" || done.TargetVersion != "v2" || done.Migrated != 20 || steps == 0 || !done.Done() {
		t.Fatalf("migration ended as %+v after %d steps", done, steps)
	}
	if done.Object["kind"] != "StorageVersionMigration" {
		t.Fatalf("object: %v", done.Object)
	}
	listed, err := client.Migrations.List(ctx)
	if err != nil || len(listed) != 1 || listed[0].Name != "to-v2" {
		t.Fatalf("list: %v %v", listed, err)
	}
	after, err := client.Definitions.Get(ctx, "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if stored := fmt.Sprint(after["status"].(map[string]any)["storedVersions"]); stored != "[v2]" {
		t.Fatalf("storedVersions: %s", stored)
	}
	if _, err := client.Migrations.Start(ctx, "widgets.example.com", "to-v2"); !errors.Is(err, crdstore.ErrAlreadyExists) {
		t.Fatalf("a second start: %v", err)
	}
	if _, err := client.Migrations.Get(ctx, "nope"); !errors.Is(err, crdstore.ErrNotFound) {
		t.Fatalf("get of an unknown migration: %v", err)
	}
}

func TestConvertBetweenVersions(t *testing.T) {
	_, client, _, ctx := setup(t)
	gadgets := widgetsDefinition()
	gadgets["metadata"] = map[string]any{"name": "gadgets.example.com"}
	gadgetSpec := gadgets["spec"].(map[string]any)
	gadgetSpec["names"] = map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"}
	v1 := gadgetSpec["versions"].([]any)[0].(map[string]any)
	v2 := map[string]any{"name": "v2", "served": true, "storage": false, "schema": v1["schema"]}
	gadgetSpec["versions"] = []any{v1, v2}
	gadgetSpec["conversion"] = map[string]any{"strategy": "None"}
	if _, err := client.Definitions.Create(ctx, gadgets, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Definitions.WaitEstablished(ctx, "gadgets.example.com"); err != nil {
		t.Fatal(err)
	}
	at := func(version, name string) crdstore.Object {
		return crdstore.Object{"apiVersion": "example.com/" + version, "kind": "Gadget",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"size": 1}}
	}
	out, err := client.Resources("example.com", "v2", "gadgets", "default").Convert(ctx, []crdstore.Object{at("v1", "a"), at("v2", "b")})
	if err != nil || len(out) != 2 || out[0]["apiVersion"] != "example.com/v2" || out[1]["apiVersion"] != "example.com/v2" || name(out[0]) != "a" {
		t.Fatalf("convert: %v %v", out, err)
	}
	_, err = client.Resources("example.com", "v1", "gadgets", "default").Convert(ctx, []crdstore.Object{at("v1", "a"), at("v9", "b")})
	var status *crdstore.StatusError
	if !errors.Is(err, crdstore.ErrBadRequest) || !errors.As(err, &status) || !strings.HasPrefix(status.Message, "objects[1]: ") {
		t.Fatalf("convert of an unknown version: %#v", err)
	}
}
