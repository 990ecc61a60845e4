package main

// client-go end to end (issue 20): the dynamic client's Apply and
// ApplyStatus with ApplyOptions against a crdstore binary ($CRDSTORE_BIN,
// as the clients' tests start it) on loopback, its managedFields checked
// against the oracle's answer for the same requests, and a conflict read
// as client-go's typed error.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// startCrdstore runs $CRDSTORE_BIN on free loopback ports over a temporary
// data directory and returns its HTTP address.
func startCrdstore(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CRDSTORE_BIN")
	if bin == "" {
		t.Skip("CRDSTORE_BIN is not set (scripts/test sets it to the binary it built)")
	}
	cmd := exec.Command(bin, "serve", "--data-dir", t.TempDir(), "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if fields := strings.Fields(lines.Text()); len(fields) > 2 && strings.HasPrefix(lines.Text(), "crdstore listening") {
			for _, f := range fields[2:] {
				if addr, ok := strings.CutPrefix(f, "http="); ok {
					go func() {
						for lines.Scan() {
						}
					}()
					return addr
				}
			}
		}
	}
	t.Fatal("crdstore exited before listening")
	return ""
}

var gadgetSchema = props(
	"spec", props("replicas", integer(), "color", str(),
		"tags", obj("type", "array", "items", str(), "x-kubernetes-list-type", "set")),
	"status", props("phase", str()),
)

func gadget(fields ...interface{}) *unstructured.Unstructured {
	o := obj("apiVersion", "ssa.example.com/v1", "kind", "Gadget", "metadata", obj("name", "g1", "namespace", "default"))
	for i := 0; i < len(fields); i += 2 {
		o[fields[i].(string)] = fields[i+1]
	}
	return &unstructured.Unstructured{Object: deepCopy(o)}
}

// managedOf is an object's managedFields as the oracle states them.
func managedOf(t *testing.T, u *unstructured.Unstructured) []ManagedFieldsEntry {
	t.Helper()
	e, err := expectation(u)
	if err != nil {
		t.Fatal(err)
	}
	return e.ManagedFields
}

func sameManaged(t *testing.T, what string, got, want []ManagedFieldsEntry) {
	t.Helper()
	norm := func(m []ManagedFieldsEntry) interface{} {
		byKey := map[string]interface{}{}
		for _, e := range m {
			var fields interface{}
			_ = json.Unmarshal(e.FieldsV1, &fields)
			byKey[e.Manager+"/"+e.Operation+"/"+e.Subresource] = []interface{}{e.APIVersion, e.FieldsType, fields}
		}
		return byKey
	}
	if !reflect.DeepEqual(norm(got), norm(want)) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: managedFields\n got  %s\n want %s", what, g, w)
	}
}

func TestClientGoDynamicApply(t *testing.T) {
	addr := startCrdstore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dc, err := dynamic.NewForConfig(&rest.Config{Host: "http://" + addr})
	if err != nil {
		t.Fatal(err)
	}

	// The definition, through the same client.
	crds := dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{Object: deepCopy(obj(
		"apiVersion", "apiextensions.k8s.io/v1", "kind", "CustomResourceDefinition",
		"metadata", obj("name", "gadgets.ssa.example.com"),
		"spec", obj("group", "ssa.example.com", "scope", "Namespaced",
			"names", obj("plural", "gadgets", "singular", "gadget", "kind", "Gadget", "listKind", "GadgetList"),
			"versions", []interface{}{obj("name", "v1", "served", true, "storage", true,
				"subresources", obj("status", obj()),
				"schema", obj("openAPIV3Schema", gadgetSchema))}),
	))}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the definition: %v", err)
	}
	for established := false; !established; time.Sleep(50 * time.Millisecond) {
		got, err := crds.Get(ctx, "gadgets.ssa.example.com", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if c, ok := c.(map[string]interface{}); ok && c["type"] == "Established" && c["status"] == "True" {
				established = true
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the definition was never established")
		}
	}

	gadgets := dc.Resource(schema.GroupVersionResource{Group: "ssa.example.com", Version: "v1", Resource: "gadgets"}).Namespace("default")
	// The oracle's answers for the same requests.
	oracle := &Case{Name: "client-go", Group: "ssa.example.com", Kind: "Gadget", Plural: "gadgets", Version: "v1",
		Scope: "Namespaced", Subresources: map[string]json.RawMessage{"status": json.RawMessage("{}")}, Schema: gadgetSchema,
		Steps: []Step{
			{Op: "apply", Manager: "alice", Object: gadget("spec", obj("replicas", 1, "tags", []interface{}{"a"})).Object},
			{Op: "apply", Manager: "bob", Object: gadget("spec", obj("color", "blue", "tags", []interface{}{"a", "b"})).Object},
			{Op: "apply", Manager: "bob", Object: gadget("spec", obj("replicas", 5)).Object},
			{Op: "apply", Manager: "bob", Force: true, Object: gadget("spec", obj("replicas", 5)).Object},
			{Op: "apply", Manager: "controller", Subresource: "status", Object: gadget("status", obj("phase", "Ready")).Object},
		}}
	if err := Expect(oracle); err != nil {
		t.Fatal(err)
	}
	want := oracle.Expected

	created, err := gadgets.Apply(ctx, "g1", gadget("spec", obj("replicas", 1, "tags", []interface{}{"a"})), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply that creates: %v", err)
	}
	sameManaged(t, "created", managedOf(t, created), want[0].ManagedFields)

	merged, err := gadgets.Apply(ctx, "g1", gadget("spec", obj("color", "blue", "tags", []interface{}{"a", "b"})), metav1.ApplyOptions{FieldManager: "bob"})
	if err != nil {
		t.Fatalf("apply by a second manager: %v", err)
	}
	sameManaged(t, "merged", managedOf(t, merged), want[1].ManagedFields)
	if e, _ := expectation(merged); !reflect.DeepEqual(e.Object, want[1].Object) {
		t.Errorf("merged object: got %v, want %v", e.Object, want[1].Object)
	}

	_, err = gadgets.Apply(ctx, "g1", gadget("spec", obj("replicas", 5)), metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("a conflicting apply: want a Conflict, got %v", err)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("not a status error: %v", err)
	}
	if got := status.Status().Message; got != want[2].Message {
		t.Errorf("conflict message: got %q, want %q", got, want[2].Message)
	}
	causes := status.Status().Details.Causes
	if len(causes) != 1 || causes[0].Type != metav1.CauseTypeFieldManagerConflict ||
		causes[0].Field != ".spec.replicas" || causes[0].Message != `conflict with "alice"` {
		t.Errorf("conflict causes: %+v", causes)
	}

	forced, err := gadgets.Apply(ctx, "g1", gadget("spec", obj("replicas", 5)), metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	sameManaged(t, "forced", managedOf(t, forced), want[3].ManagedFields)
	if replicas, _, _ := unstructured.NestedInt64(forced.Object, "spec", "replicas"); replicas != 5 {
		t.Errorf("forced replicas: %d", replicas)
	}

	withStatus, err := gadgets.ApplyStatus(ctx, "g1", gadget("status", obj("phase", "Ready")), metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatalf("apply of status: %v", err)
	}
	sameManaged(t, "status", managedOf(t, withStatus), want[4].ManagedFields)

	// The server still serves.
	if _, err := gadgets.Get(ctx, "g1", metav1.GetOptions{}); err != nil {
		t.Fatalf("the server no longer serves: %v", err)
	}
}
