package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The operator, unmodified, against crdstore's HTTP gateway: it reconciles
// (the child exists with its owner reference, the status is updated, an
// Event is recorded), and a second replica takes the leadership Lease over
// when the first is killed.

const wait = 60 * time.Second

func crdstoreBinary() string {
	if bin := os.Getenv("CRDSTORE_BIN"); bin != "" {
		return bin
	}
	abs, _ := filepath.Abs("../../target/debug/crdstore")
	return abs
}

// startCrdstore runs the built binary on free loopback ports; its HTTP address.
func startCrdstore(t *testing.T) string {
	cmd := exec.Command(crdstoreBinary(), "serve", "--data-dir", t.TempDir(), "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", crdstoreBinary(), err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		for _, field := range strings.Fields(lines.Text()) {
			if v, ok := strings.CutPrefix(field, "http="); ok {
				go func() {
					for lines.Scan() {
					}
				}()
				return v
			}
		}
	}
	t.Fatalf("crdstore exited before listening: %v", cmd.Wait())
	return ""
}

type api struct {
	t    *testing.T
	base string
}

func (a api) do(method, path string, body any) (int, map[string]any) {
	var reader io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		reader = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.base+path, reader)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (a api) mustCreate(path string, body any) {
	if code, out := a.do("POST", path, body); code != http.StatusCreated {
		a.t.Fatalf("POST %s: %d %v", path, code, out)
	}
}

// eventually polls until check passes or the wait is over.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func crd(kind, plural string, status bool) map[string]any {
	version := map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
		"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	if status {
		version["subresources"] = map[string]any{"status": map[string]any{}}
	}
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".ops.example.com"},
		"spec": map[string]any{"group": "ops.example.com", "scope": "Namespaced",
			"names":    map[string]any{"plural": plural, "singular": strings.ToLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{version}}}
}

func get(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		next, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = next[p]
	}
	return v
}

func startOperator(t *testing.T, bin, kubeconfig, identity string) *exec.Cmd {
	cmd := exec.Command(bin, "--identity", identity)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	logs, _ := os.Create(filepath.Join(t.TempDir(), identity+".log"))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("operator %s log:\n%s", identity, b)
		}
	})
	return cmd
}

func TestOperatorAgainstCrdstore(t *testing.T) {
	addr := startCrdstore(t)
	a := api{t, "http://" + addr}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	config := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- cluster: {server: \"http://%s\"}\n  name: crdstore\ncontexts:\n- context: {cluster: crdstore, user: me, namespace: default}\n  name: crdstore\ncurrent-context: crdstore\nusers:\n- name: me\n  user: {}\n", addr)
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "operator")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a.mustCreate("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("Parent", "parents", true))
	a.mustCreate("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd("Child", "children", false))
	eventually(t, "the definitions to be served", func() bool {
		code, _ := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/children", nil)
		return code == http.StatusOK
	})

	first := startOperator(t, bin, kubeconfig, "a")
	leasePath := "/apis/coordination.k8s.io/v1/namespaces/default/leases/parent-operator.ops.example.com"
	holder := func() string {
		_, lease := a.do("GET", leasePath, nil)
		s, _ := get(lease, "spec", "holderIdentity").(string)
		return s
	}
	eventually(t, "the first replica to lead", func() bool { return holder() != "" })
	leader := holder()

	parent := func(name string) map[string]any {
		return map[string]any{"apiVersion": "ops.example.com/v1", "kind": "Parent",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"message": "hello"}}
	}
	a.mustCreate("/apis/ops.example.com/v1/namespaces/default/parents", parent("p1"))
	var child map[string]any
	eventually(t, "the child", func() bool {
		code, out := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/children/p1-child", nil)
		child = out
		return code == http.StatusOK
	})
	_, p1 := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/parents/p1", nil)
	owners, _ := get(child, "metadata", "ownerReferences").([]any)
	if len(owners) != 1 || get(owners[0].(map[string]any), "uid") != get(p1, "metadata", "uid") ||
		get(owners[0].(map[string]any), "controller") != true {
		t.Fatalf("the child's owner references: %v", owners)
	}
	if got := get(child, "spec", "data", "reconciler"); got != "a" {
		t.Fatalf("reconciled by %v", got)
	}
	eventually(t, "the parent's status", func() bool {
		_, p := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/parents/p1", nil)
		return get(p, "status", "ready") == true && get(p, "status", "childName") == "p1-child"
	})
	eventually(t, "the event", func() bool {
		_, list := a.do("GET", "/api/v1/namespaces/default/events", nil)
		_, list2 := a.do("GET", "/apis/events.k8s.io/v1/namespaces/default/events", nil)
		items, _ := list["items"].([]any)
		items2, _ := list2["items"].([]any)
		for _, e := range append(items, items2...) {
			if get(e.(map[string]any), "reason") == "ChildCreated" {
				return true
			}
		}
		return false
	})

	// A second replica waits; the first is killed; the second takes over.
	startOperator(t, bin, kubeconfig, "b")
	time.Sleep(2 * time.Second)
	if holder() != leader {
		t.Fatalf("the lease moved while its holder was alive: %s -> %s", leader, holder())
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the second replica to lead", func() bool { h := holder(); return h != "" && h != leader })
	a.mustCreate("/apis/ops.example.com/v1/namespaces/default/parents", parent("p2"))
	eventually(t, "the second replica to reconcile", func() bool {
		_, c := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/children/p2-child", nil)
		return get(c, "spec", "data", "reconciler") == "b"
	})
	// Deleting a parent (background, the default) collects its child; the
	// other parent's child stays.
	if code, out := a.do("DELETE", "/apis/ops.example.com/v1/namespaces/default/parents/p1", nil); code != http.StatusOK {
		t.Fatalf("deleting p1: %d %v", code, out)
	}
	eventually(t, "p1's child to be garbage-collected", func() bool {
		code, _ := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/children/p1-child", nil)
		return code == http.StatusNotFound
	})
	if code, _ := a.do("GET", "/apis/ops.example.com/v1/namespaces/default/children/p2-child", nil); code != http.StatusOK {
		t.Fatalf("p2's child was collected with p1's: %d", code)
	}
}
