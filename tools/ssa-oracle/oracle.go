package main

// The oracle: one case played through Kubernetes' own field manager, built
// exactly as apiextensions-apiserver builds it for a custom resource
// (customresource_handler.go: builder.BuildOpenAPIV3 of the definition,
// managedfields.NewTypeConverter over its models, NewDefaultCRDFieldManager
// per endpoint with the strategies' reset fields), followed by the
// strategies' PrepareForCreate/PrepareForUpdate, which run after the field
// manager in the apiserver's create, update and patch handlers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Case is one line of the differential case format (JSON Lines).
type Case struct {
	Name         string                     `json:"name"`
	Group        string                     `json:"group"`
	Kind         string                     `json:"kind"`
	Plural       string                     `json:"plural"`
	Version      string                     `json:"version"`
	Scope        string                     `json:"scope"`
	Subresources map[string]json.RawMessage `json:"subresources,omitempty"`
	Schema       map[string]interface{}     `json:"schema"`
	Steps        []Step                     `json:"steps"`
	Expected     []Expected                 `json:"expected,omitempty"`
}

// Step is one request: an apply (PATCH application/apply-patch+yaml) or an
// update (PUT) by one manager, on the object or on a subresource.
type Step struct {
	Op          string                 `json:"op"`
	Manager     string                 `json:"manager"`
	Force       bool                   `json:"force,omitempty"`
	Subresource string                 `json:"subresource"`
	Object      map[string]interface{} `json:"object"`
}

// Expected is the outcome of one step: the live object and its managed
// fields, or the conflicts that refused it.
type Expected struct {
	Object        map[string]interface{} `json:"object,omitempty"`
	ManagedFields []ManagedFieldsEntry   `json:"managedFields,omitempty"`
	Conflicts     []Conflict             `json:"conflicts,omitempty"`
	Message       string                 `json:"message,omitempty"`
}

// ManagedFieldsEntry is metav1.ManagedFieldsEntry without "time".
type ManagedFieldsEntry struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	APIVersion  string          `json:"apiVersion"`
	FieldsType  string          `json:"fieldsType"`
	FieldsV1    json.RawMessage `json:"fieldsV1"`
	Subresource string          `json:"subresource,omitempty"`
}

// Conflict is one cause of a refused apply: type FieldManagerConflict,
// the manager's name, Kubernetes' cause message and the field.
type Conflict struct {
	Manager string `json:"manager"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// fixedTime stands for the apiserver's clock: every managedFields entry
// carries it after each step, so entries order (and the cap picks the
// oldest) by operation, then manager, as under a clock that does not move.
var fixedTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// server is one definition's apiserver state: the field managers of the
// main endpoint and /status, and the live object.
type server struct {
	c        *Case
	gvk      schema.GroupVersionKind
	status   bool
	managers map[string]*managedfields.FieldManager
	live     *unstructured.Unstructured
}

func (c *Case) definition() (*apiextensionsv1.CustomResourceDefinition, error) {
	raw, err := json.Marshal(c.Schema)
	if err != nil {
		return nil, err
	}
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(raw, &props); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	version := apiextensionsv1.CustomResourceDefinitionVersion{
		Name: c.Version, Served: true, Storage: true,
		Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &props},
	}
	if _, ok := c.Subresources["status"]; ok {
		version.Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: c.Plural + "." + c.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: c.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: c.Plural, Kind: c.Kind, ListKind: c.Kind + "List",
			},
			Scope:    apiextensionsv1.ResourceScope(c.Scope),
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version},
		},
	}, nil
}

func newServer(c *Case) (*server, error) {
	crd, err := c.definition()
	if err != nil {
		return nil, err
	}
	// buildOpenAPIModelsForApply: the definition's OpenAPI v3 (which
	// carries ObjectMeta's schema for metadata) as the type converter's
	// models.
	spec, err := builder.BuildOpenAPIV3(crd, c.Version, builder.Options{})
	if err != nil {
		return nil, fmt.Errorf("openapi: %v", err)
	}
	tc, err := managedfields.NewTypeConverter(spec.Components.Schemas, false)
	if err != nil {
		return nil, fmt.Errorf("type converter: %v", err)
	}
	gvk := schema.GroupVersionKind{Group: c.Group, Version: c.Version, Kind: c.Kind}
	apiVersion := fieldpath.APIVersion(gvk.GroupVersion().String())
	s := &server{c: c, gvk: gvk, managers: map[string]*managedfields.FieldManager{}}
	_, s.status = c.Subresources["status"]
	// The strategies' GetResetFields (registry/customresource).
	mainReset := map[fieldpath.APIVersion]*fieldpath.Set{}
	if s.status {
		mainReset[apiVersion] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	endpoints := map[string]map[fieldpath.APIVersion]*fieldpath.Set{"": mainReset}
	if s.status {
		endpoints["status"] = map[fieldpath.APIVersion]*fieldpath.Set{
			apiVersion: fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec")),
		}
	}
	for sub, reset := range endpoints {
		fm, err := managedfields.NewDefaultCRDFieldManager(tc, noConversion{}, noDefaults{}, creater{}, gvk, gvk.GroupVersion(), sub, fieldpath.NewExcludeFilterSetMap(reset))
		if err != nil {
			return nil, err
		}
		s.managers[sub] = fm
	}
	return s, nil
}

// errNotFound is a step on a subresource of an object that does not exist.
var errNotFound = errors.New("not found")

// step plays one request and returns the new live object, or the error
// the apiserver answers with (the live object is then unchanged).
func (s *server) step(st Step) (*unstructured.Unstructured, error) {
	fm, ok := s.managers[st.Subresource]
	if !ok {
		return nil, fmt.Errorf("no subresource %q", st.Subresource)
	}
	body := &unstructured.Unstructured{Object: deepCopy(st.Object)}
	var out runtime.Object
	var err error
	switch {
	case s.live == nil && st.Subresource != "":
		return nil, errNotFound
	case s.live == nil && st.Op == "apply":
		// applyPatcher.createNewObject: apply to a new, empty object.
		empty, _ := creater{}.New(s.gvk)
		out, err = fm.Apply(empty, body, st.Manager, st.Force)
	case s.live == nil && st.Op == "update":
		// The create handler: UpdateNoErrors against a new, empty object.
		empty, _ := creater{}.New(s.gvk)
		out = fm.UpdateNoErrors(empty, body, st.Manager)
	case st.Op == "apply":
		out, err = fm.Apply(s.live.DeepCopy(), body, st.Manager, st.Force)
	case st.Op == "update":
		out = fm.UpdateNoErrors(s.live.DeepCopy(), body, st.Manager)
	default:
		return nil, fmt.Errorf("unknown op %q", st.Op)
	}
	if err != nil {
		return nil, err
	}
	obj := out.(*unstructured.Unstructured)
	// The strategy, after the field manager (rest.BeforeCreate/BeforeUpdate).
	switch {
	case s.live == nil:
		if s.status {
			delete(obj.Object, "status")
		}
	case st.Subresource == "status":
		status, ok := obj.Object["status"]
		managed := obj.GetManagedFields()
		obj = s.live.DeepCopy()
		obj.SetManagedFields(managed)
		if ok {
			obj.Object["status"] = status
		} else {
			delete(obj.Object, "status")
		}
	default:
		if s.status {
			if old, ok := s.live.Object["status"]; ok {
				obj.Object["status"] = old
			} else {
				delete(obj.Object, "status")
			}
		}
	}
	// The fixed clock.
	managed := obj.GetManagedFields()
	for i := range managed {
		managed[i].Time = &fixedTime
	}
	sortManagedFields(managed)
	obj.SetManagedFields(managed)
	return obj, nil
}

// sortManagedFields is managedfields' sortEncodedManagedFields (operation,
// time in seconds, manager, subresource).
func sortManagedFields(m []metav1.ManagedFieldsEntry) {
	sort.SliceStable(m, func(i, j int) bool {
		p, q := m[i], m[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		var ps, qs int64
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		return p.Subresource < q.Subresource
	})
}

// Expect fills c.Expected by playing every step.
func Expect(c *Case) error {
	s, err := newServer(c)
	if err != nil {
		return fmt.Errorf("%s: %v", c.Name, err)
	}
	c.Expected = nil
	for i, st := range c.Steps {
		e, err := s.play(st)
		if err != nil {
			return fmt.Errorf("%s: step %d: %w", c.Name, i, err)
		}
		c.Expected = append(c.Expected, e)
	}
	return nil
}

// play runs one step and records its expectation; a refused step leaves
// the live object as it was.
func (s *server) play(st Step) (Expected, error) {
	obj, err := s.step(st)
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) && status.Status().Reason == metav1.StatusReasonConflict {
			return conflictExpectation(status.Status()), nil
		}
		return Expected{}, err
	}
	if why := invalid(s.c.Schema, obj.Object, ""); why != "" {
		return Expected{}, fmt.Errorf("%s: %w", why, errInvalid)
	}
	s.live = obj
	return expectation(obj)
}

// errInvalid is a step whose merge leaves an object the apiserver's
// validation refuses with 422: a null where the schema allows none (a
// field whose last owner left it, in an object nobody else owns,
// kubernetes/kubernetes#117447), or an embedded resource whose apiVersion
// or kind went with their owner. A differential case compares merges
// only, so it must not contain such a step.
var errInvalid = errors.New("the merge leaves an object the apiserver refuses as invalid")

// invalid says where a merged value breaks the schema's validation in one
// of the ways a merge can, or "".
func invalid(schema map[string]interface{}, v interface{}, at string) string {
	sub := func(key string) map[string]interface{} {
		m, _ := schema[key].(map[string]interface{})
		return m
	}
	switch v := v.(type) {
	case nil:
		return at + " is null"
	case map[string]interface{}:
		if schema["x-kubernetes-embedded-resource"] == true && (v["apiVersion"] == nil || v["kind"] == nil) {
			return at + " is an embedded resource without apiVersion or kind"
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child, _ := sub("properties")[k].(map[string]interface{})
			if child == nil {
				child = sub("additionalProperties")
			}
			if why := invalid(child, v[k], at+"."+k); why != "" {
				return why
			}
		}
	case []interface{}:
		for i, x := range v {
			if why := invalid(sub("items"), x, fmt.Sprintf("%s[%d]", at, i)); why != "" {
				return why
			}
		}
	}
	return ""
}

func conflictExpectation(st metav1.Status) Expected {
	e := Expected{Message: st.Message}
	for _, cause := range st.Details.Causes {
		e.Conflicts = append(e.Conflicts, Conflict{
			Manager: managerOfCause(cause.Message),
			Field:   cause.Field,
			Message: cause.Message,
		})
	}
	// Kubernetes lists causes in map order; a stable order for the file.
	sort.Slice(e.Conflicts, func(i, j int) bool {
		a, b := e.Conflicts[i], e.Conflicts[j]
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
	return e
}

// managerOfCause reads the manager's name out of `conflict with "m1"...`.
func managerOfCause(message string) string {
	var name string
	if _, err := fmt.Sscanf(message, "conflict with %q", &name); err != nil {
		return ""
	}
	return name
}

// expectation is the live object without the fields the server sets on its
// own, and its managed fields without time.
func expectation(obj *unstructured.Unstructured) (Expected, error) {
	managed := obj.GetManagedFields()
	o := deepCopy(obj.Object)
	if meta, ok := o["metadata"].(map[string]interface{}); ok {
		for _, f := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"} {
			delete(meta, f)
		}
	}
	e := Expected{Object: o, ManagedFields: []ManagedFieldsEntry{}}
	for _, m := range managed {
		var fields json.RawMessage
		if m.FieldsV1 != nil {
			fields = json.RawMessage(bytes.Clone(m.FieldsV1.Raw))
		}
		e.ManagedFields = append(e.ManagedFields, ManagedFieldsEntry{
			Manager: m.Manager, Operation: string(m.Operation), APIVersion: m.APIVersion,
			FieldsType: m.FieldsType, FieldsV1: fields, Subresource: m.Subresource,
		})
	}
	return e, nil
}

// deepCopy copies a JSON object, numbers as int64 or float64 as the
// apiserver's decoder leaves them.
func deepCopy(in map[string]interface{}) map[string]interface{} {
	if in == nil {
		return nil
	}
	raw, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	var out map[string]interface{}
	if err := utiljson.Unmarshal(raw, &out); err != nil {
		panic(err)
	}
	return out
}

// The one-version object machinery: no conversion, no defaults (the
// schemas carry none), and new objects of the kind.
type noConversion struct{}

func (noConversion) Convert(in, out, context interface{}) error { return nil }
func (noConversion) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (noConversion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]interface{}{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
