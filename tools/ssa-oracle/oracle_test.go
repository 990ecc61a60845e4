package main

// Hand-checked expectations: what a Kubernetes apiserver answers, written
// out here from Kubernetes' documentation and its fieldmanager tests
// (managedFields JSON as apiserver writes it), so the oracle is pinned to
// them before anything is compared with it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func testCase(status bool, spec map[string]interface{}, steps ...Step) *Case {
	c := &Case{
		Name: "t", Group: "ssa.example.com", Kind: "Widget", Plural: "widgets", Version: "v1", Scope: "Namespaced",
		Schema: props("spec", obj("type", "object", "properties", spec), "status", statusSchema()),
		Steps:  steps,
	}
	if status {
		c.Subresources = map[string]json.RawMessage{"status": json.RawMessage("{}")}
	}
	return c
}

func widget(fields ...interface{}) map[string]interface{} {
	o := obj("apiVersion", "ssa.example.com/v1", "kind", "Widget", "metadata", obj("name", "w", "namespace", "default"))
	for i := 0; i < len(fields); i += 2 {
		o[fields[i].(string)] = fields[i+1]
	}
	return deepCopy(o)
}

func apply(manager string, force bool, o map[string]interface{}) Step {
	return Step{Op: "apply", Manager: manager, Force: force, Object: o}
}

func update(manager string, o map[string]interface{}) Step {
	return Step{Op: "update", Manager: manager, Object: o}
}

func expectAll(t *testing.T, c *Case) []Expected {
	t.Helper()
	if err := Expect(c); err != nil {
		t.Fatal(err)
	}
	return c.Expected
}

func jsonEq(t *testing.T, what string, got interface{}, want string) {
	t.Helper()
	var g, w interface{}
	raw, _ := json.Marshal(got)
	_ = json.Unmarshal(raw, &g)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, raw, want)
	}
}

func scalarSpec() map[string]interface{} {
	return obj("replicas", integer(), "image", str())
}

func TestConflictMessageAndCauses(t *testing.T) {
	c := testCase(false, scalarSpec(),
		apply("m1", false, widget("spec", obj("replicas", 1))),
		update("m2", widget("spec", obj("replicas", 1, "image", "nginx"))),
		apply("m3", false, widget("spec", obj("replicas", 2))),
		apply("m3", false, widget("spec", obj("replicas", 2, "image", "redis"))),
		apply("m3", true, widget("spec", obj("replicas", 2, "image", "redis"))),
	)
	e := expectAll(t, c)
	jsonEq(t, "one conflict", e[2], `{"conflicts":[{"manager":"m1","field":".spec.replicas","message":"conflict with \"m1\""}],
		"message":"Apply failed with 1 conflict: conflict with \"m1\": .spec.replicas"}`)
	jsonEq(t, "two conflicts", e[3], `{"conflicts":[
		{"manager":"m2","field":".spec.image","message":"conflict with \"m2\" using ssa.example.com/v1"},
		{"manager":"m1","field":".spec.replicas","message":"conflict with \"m1\""}],
		"message":"Apply failed with 2 conflicts: conflicts with \"m1\":\n- .spec.replicas\nconflicts with \"m2\" using ssa.example.com/v1:\n- .spec.image"}`)
	// Forced: m3 takes both fields; m1 and m2 lose them, m2's now empty
	// entry disappears.
	jsonEq(t, "forced", e[4], `{"object":{"apiVersion":"ssa.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},
		"spec":{"replicas":2,"image":"redis"}},
		"managedFields":[
		{"manager":"m3","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:image":{},"f:replicas":{}}}}]}`)
}

func TestSetListMerge(t *testing.T) {
	spec := obj("tags", obj("type", "array", "items", str(), "x-kubernetes-list-type", "set"))
	c := testCase(false, spec,
		apply("m1", false, widget("spec", obj("tags", []interface{}{"a", "b"}))),
		apply("m2", false, widget("spec", obj("tags", []interface{}{"c", "b"}))),
		apply("m1", false, widget("spec", obj("tags", []interface{}{"a"}))),
		apply("m2", false, widget("spec", obj())),
	)
	e := expectAll(t, c)
	// Values only the live object has come first, then the applied ones
	// in the applied order (structured-merge-diff's set merge).
	jsonEq(t, "merged set", e[1].Object["spec"], `{"tags":["a","c","b"]}`)
	jsonEq(t, "set owners", e[1].ManagedFields, `[
		{"manager":"m1","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:tags":{"v:\"a\"":{},"v:\"b\"":{}}}}},
		{"manager":"m2","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:tags":{"v:\"b\"":{},"v:\"c\"":{}}}}}]`)
	// m1 omits "b", which m2 still owns: it stays.
	jsonEq(t, "shared value kept", e[2].Object["spec"], `{"tags":["a","c","b"]}`)
	// m2 omits everything: its values go, m1's "a" stays.
	jsonEq(t, "removal by omission", e[3].Object["spec"], `{"tags":["a"]}`)
}

func TestMapListWithTwoKeys(t *testing.T) {
	spec := obj("endpoints", specFields["endpoints"].schema())
	c := testCase(false, spec,
		apply("m1", false, widget("spec", obj("endpoints", []interface{}{obj("host", "alpha", "port", 80, "weight", 1)}))),
		apply("m2", false, widget("spec", obj("endpoints", []interface{}{
			obj("host", "alpha", "port", 443, "protocol", "TCP"), obj("host", "alpha", "port", 80, "protocol", "UDP")}))),
		apply("m2", false, widget("spec", obj("endpoints", []interface{}{obj("host", "alpha", "port", 80, "weight", 2)}))),
	)
	e := expectAll(t, c)
	// The applied order, the live item's other fields kept.
	jsonEq(t, "merged items", e[1].Object["spec"], `{"endpoints":[
		{"host":"alpha","port":443,"protocol":"TCP"},{"host":"alpha","port":80,"weight":1,"protocol":"UDP"}]}`)
	jsonEq(t, "item owners", e[1].ManagedFields[1].FieldsV1, `{"f:spec":{"f:endpoints":{
		"k:{\"host\":\"alpha\",\"port\":443}":{".":{},"f:host":{},"f:port":{},"f:protocol":{}},
		"k:{\"host\":\"alpha\",\"port\":80}":{".":{},"f:host":{},"f:port":{},"f:protocol":{}}}}}`)
	jsonEq(t, "conflict inside an item", e[2].Conflicts,
		`[{"manager":"m1","field":".spec.endpoints[host=\"alpha\",port=80].weight","message":"conflict with \"m1\""}]`)
}

func TestAtomicAndGranularMaps(t *testing.T) {
	spec := obj("selector", specFields["selector"].schema(), "labels", specFields["labels"].schema(),
		"resources", specFields["resources"].schema())
	c := testCase(false, spec,
		apply("m1", false, widget("spec", obj("selector", obj("s1", "a"), "labels", obj("k1", "a"), "resources", obj("cpu", "1")))),
		apply("m2", false, widget("spec", obj("selector", obj("s2", "b"), "labels", obj("k2", "b")))),
		apply("m2", true, widget("spec", obj("selector", obj("s2", "b"), "labels", obj("k2", "b"), "resources", obj("memory", "1Gi")))),
	)
	e := expectAll(t, c)
	jsonEq(t, "atomic map conflicts, granular map does not", e[1].Conflicts,
		`[{"manager":"m1","field":".spec.selector","message":"conflict with \"m1\""}]`)
	jsonEq(t, "atomic replaced whole, granular merged", e[2].Object["spec"],
		`{"selector":{"s2":"b"},"labels":{"k1":"a","k2":"b"},"resources":{"memory":"1Gi"}}`)
	jsonEq(t, "owners", e[2].ManagedFields, `[
		{"manager":"m1","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:labels":{"f:k1":{}}}}},
		{"manager":"m2","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:labels":{"f:k2":{}},"f:resources":{},"f:selector":{}}}}]`)
}

func TestUpdateManagersAreCappedIntoAncientChanges(t *testing.T) {
	c := testCase(false, scalarSpec())
	labels := map[string]interface{}{}
	for i := 0; i <= 10; i++ {
		labels[fmt.Sprintf("k%02d", i)] = "v"
		o := widget("spec", obj("replicas", 1))
		o["metadata"].(map[string]interface{})["labels"] = deepCopy(labels)
		c.Steps = append(c.Steps, update(fmt.Sprintf("u%02d", i), o))
	}
	e := expectAll(t, c)
	if n := len(e[9].ManagedFields); n != 10 {
		t.Fatalf("ten update managers: got %d entries", n)
	}
	last := e[10].ManagedFields
	var managers []string
	for _, m := range last {
		managers = append(managers, m.Manager)
	}
	if got := strings.Join(managers, ","); got != "ancient-changes,u02,u03,u04,u05,u06,u07,u08,u09,u10" {
		t.Fatalf("capped managers: %s", got)
	}
	jsonEq(t, "the bucket", last[0], `{"manager":"ancient-changes","operation":"Update","apiVersion":"ssa.example.com/v1",
		"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:k00":{},"f:k01":{}}},"f:spec":{".":{},"f:replicas":{}}}}`)
}

func TestStatusIsStrippedOnTheMainEndpointWithTheSubresource(t *testing.T) {
	status := obj("phase", "Ready")
	c := testCase(true, scalarSpec(),
		apply("m1", false, widget("spec", obj("replicas", 1), "status", status)),
		Step{Op: "apply", Manager: "ctl", Subresource: "status", Object: widget("status", status)},
		apply("m1", false, widget("spec", obj("replicas", 2), "status", obj("phase", "Gone"))),
		Step{Op: "update", Manager: "kubelet", Subresource: "status", Object: widget("spec", obj("replicas", 9), "status", obj("phase", "Done"))},
	)
	e := expectAll(t, c)
	jsonEq(t, "created without status", e[0].Object, `{"apiVersion":"ssa.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},"spec":{"replicas":1}}`)
	jsonEq(t, "no status owned on the main endpoint", e[0].ManagedFields[0].FieldsV1, `{"f:spec":{"f:replicas":{}}}`)
	jsonEq(t, "status applied", e[1].ManagedFields, `[
		{"manager":"ctl","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"},
		{"manager":"m1","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]`)
	jsonEq(t, "status kept by the main endpoint", e[2].Object["status"], `{"phase":"Ready"}`)
	jsonEq(t, "spec kept by /status", e[3].Object, `{"apiVersion":"ssa.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},"spec":{"replicas":2},"status":{"phase":"Done"}}`)
	// kubelet takes phase from ctl, whose entry, now empty, goes.
	if len(e[3].ManagedFields) != 2 {
		t.Fatalf("entries after the status update: %+v", e[3].ManagedFields)
	}
	jsonEq(t, "status update entry", e[3].ManagedFields[1], `{"manager":"kubelet","operation":"Update","apiVersion":"ssa.example.com/v1",
		"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{}}},"subresource":"status"}`)
}

func TestRemovalByOmission(t *testing.T) {
	c := testCase(false, scalarSpec(),
		apply("m1", false, widget("spec", obj("replicas", 1, "image", "nginx"))),
		apply("m2", false, widget("spec", obj("replicas", 1))),
		apply("m1", false, widget("spec", obj("image", "nginx"))),
		apply("m2", false, widget("spec", obj())),
	)
	e := expectAll(t, c)
	jsonEq(t, "co-owned field kept", e[2].Object["spec"], `{"replicas":1,"image":"nginx"}`)
	jsonEq(t, "last owner gone", e[3].Object["spec"], `{"image":"nginx"}`)
	jsonEq(t, "owners", e[3].ManagedFields, `[
		{"manager":"m1","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:image":{}}}},
		{"manager":"m2","operation":"Apply","apiVersion":"ssa.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]`)

	// Removing the last field of a spec nobody owns leaves "spec": null,
	// which Kubernetes refuses as invalid: such a case is no merge case.
	c = testCase(false, scalarSpec(),
		apply("m1", false, widget("spec", obj("replicas", 1))),
		apply("m1", false, widget("spec", obj())),
	)
	if err := Expect(c); !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), ".spec is null: ") {
		t.Fatalf("a merge that leaves null: %v", err)
	}
}

func TestAnEmbeddedResourceLosingItsKindIsNoMergeCase(t *testing.T) {
	spec := obj("template", specFields["template"].schema(), "replicas", integer())
	tmpl := func(d string) map[string]interface{} {
		return obj("apiVersion", "v1", "kind", "ConfigMap", "data", obj("d1", d))
	}
	c := testCase(false, spec,
		apply("m1", false, widget("spec", obj("replicas", 1, "template", tmpl("x")))),
		update("m2", widget("spec", obj("replicas", 1, "template", tmpl("y")))),
		apply("m1", false, widget("spec", obj("replicas", 1))),
	)
	// apiVersion and kind leave with m1, who alone owned them: the
	// apiserver's validation refuses what remains.
	if err := Expect(c); !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), ".spec.template is ") {
		t.Fatalf("an embedded resource without its kind: %v", err)
	}
}

// TestGeneratedCasesCoverTheDesign checks the generator draws what the
// differential test promises: every list and map type, two and three
// managers, applies and updates, force, /status steps, conflicts and
// removal by omission.
func TestGeneratedCasesCoverTheDesign(t *testing.T) {
	seen := map[string]int{}
	for i := 0; i < 150; i++ {
		c, err := Generate(1, i)
		if err != nil {
			t.Fatal(err)
		}
		walkSchema(c.Schema, seen)
		managers := map[string]bool{}
		for n, st := range c.Steps {
			managers[st.Manager] = true
			seen["op:"+st.Op]++
			if st.Force {
				seen["force"]++
			}
			if st.Subresource == "status" {
				seen["status:"+st.Op]++
			}
			if c.Expected[n].Conflicts != nil {
				seen["conflict"]++
			}
			if n > 0 && c.Expected[n].Conflicts == nil && c.Expected[n-1].Conflicts == nil && st.Op == "apply" &&
				st.Subresource == "" && len(specOf(c.Expected[n].Object)) < len(specOf(c.Expected[n-1].Object)) {
				seen["removal"]++
			}
		}
		seen[fmt.Sprintf("managers:%d", len(managers))]++
	}
	for _, want := range []string{
		"list:atomic", "list:default", "list:set", "list:map/1", "list:map/2",
		"map:granular", "map:atomic", "map:default", "struct:atomic", "struct:granular",
		"preserve-unknown-fields", "embedded-resource", "int-or-string",
		"op:apply", "op:update", "force", "status:apply", "status:update", "conflict", "removal",
		"managers:2", "managers:3",
	} {
		if seen[want] == 0 {
			t.Errorf("no generated case has %s (seen %v)", want, seen)
		}
	}
}

func specOf(o map[string]interface{}) map[string]interface{} {
	spec, _ := o["spec"].(map[string]interface{})
	return spec
}

func walkSchema(s map[string]interface{}, seen map[string]int) {
	if s["x-kubernetes-preserve-unknown-fields"] == true {
		seen["preserve-unknown-fields"]++
	}
	if s["x-kubernetes-embedded-resource"] == true {
		seen["embedded-resource"]++
	}
	if s["x-kubernetes-int-or-string"] == true {
		seen["int-or-string"]++
	}
	switch s["type"] {
	case "array":
		switch lt, _ := s["x-kubernetes-list-type"].(string); lt {
		case "":
			seen["list:default"]++
		case "map":
			seen[fmt.Sprintf("list:map/%d", len(s["x-kubernetes-list-map-keys"].([]interface{})))]++
		default:
			seen["list:"+lt]++
		}
		walkSchema(s["items"].(map[string]interface{}), seen)
	case "object":
		mt, _ := s["x-kubernetes-map-type"].(string)
		if mt == "" {
			mt = "default"
		}
		if ap, ok := s["additionalProperties"].(map[string]interface{}); ok {
			seen["map:"+mt]++
			walkSchema(ap, seen)
		}
		if p, ok := s["properties"].(map[string]interface{}); ok {
			if mt != "default" {
				seen["struct:"+mt]++
			}
			for _, v := range p {
				walkSchema(v.(map[string]interface{}), seen)
			}
		}
	}
}
