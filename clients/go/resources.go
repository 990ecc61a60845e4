package crdstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// Definitions manages custom resource definitions (apiextensions.k8s.io/v1).
type Definitions struct{ client *Client }

// Create registers a definition.
func (d *Definitions) Create(ctx context.Context, definition Object, opts *WriteOptions) (Object, error) {
	body, o, err := writeRequest(definition, opts)
	if err != nil {
		return nil, err
	}
	resp, err := call(d.client, ctx, d.client.definitions.Create, &v1.CreateDefinitionRequest{Definition: body, Options: o})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetDefinition())
}

// Get reads a definition by name (plural.group).
func (d *Definitions) Get(ctx context.Context, name string) (Object, error) {
	resp, err := call(d.client, ctx, d.client.definitions.Get, &v1.GetDefinitionRequest{Name: name})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetDefinition())
}

// List reads a page of definitions.
func (d *Definitions) List(ctx context.Context, opts ListOptions) (*Page, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	resp, err := call(d.client, ctx, d.client.definitions.List, &v1.ListDefinitionsRequest{Options: opts.proto()})
	if err != nil {
		return nil, err
	}
	return page(resp.GetItems(), resp.GetResourceVersion(), resp.GetContinueToken(), resp.GetRemainingItemCount())
}

// Update replaces a definition; its metadata.resourceVersion must be current.
func (d *Definitions) Update(ctx context.Context, definition Object, opts *WriteOptions) (Object, error) {
	body, o, err := writeRequest(definition, opts)
	if err != nil {
		return nil, err
	}
	resp, err := call(d.client, ctx, d.client.definitions.Update, &v1.UpdateDefinitionRequest{Definition: body, Options: o})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetDefinition())
}

// Delete deletes a definition and, once they are gone, its objects.
func (d *Definitions) Delete(ctx context.Context, name string) (*Deleted, error) {
	resp, err := call(d.client, ctx, d.client.definitions.Delete, &v1.DeleteDefinitionRequest{Name: name})
	if err != nil {
		return nil, err
	}
	obj, err := decode(resp.GetDefinition())
	return &Deleted{Object: obj, Deleted: resp.GetDeleted()}, err
}

// FeatureGate is a field-level feature gate of a definition
// (spec.customFeatureGates).
type FeatureGate struct {
	Definition string
	Component  string
	Name       string
	// Stage is alpha, beta, stable or deprecated.
	Stage   string
	Default bool
	// Enabled is as set; nil when the gate falls back to its default.
	Enabled *bool
	// Effective is whether the gate lets its fields through now.
	Effective bool
	Paths     []string
}

// ListFeatureGates lists the field-level feature gates of every definition;
// a non-empty definition or component keeps only those of it.
func (d *Definitions) ListFeatureGates(ctx context.Context, definition, component string) ([]FeatureGate, error) {
	req := &v1.ListFeatureGatesRequest{Definition: definition, Component: component}
	resp, err := call(d.client, ctx, d.client.definitions.ListFeatureGates, req)
	if err != nil {
		return nil, err
	}
	gates := make([]FeatureGate, 0, len(resp.GetGates()))
	for _, g := range resp.GetGates() {
		gates = append(gates, FeatureGate{
			Definition: g.GetDefinition(), Component: g.GetComponent(), Name: g.GetName(), Stage: g.GetStage(),
			Default: g.GetDefault(), Enabled: g.Enabled, Effective: g.GetEffective(), Paths: g.GetPaths(),
		})
	}
	return gates, nil
}

// WaitEstablished waits until the definition's Established condition is
// True, and returns it; it fails when ctx ends first.
func (d *Definitions) WaitEstablished(ctx context.Context, name string) (Object, error) {
	for {
		definition, err := d.Get(ctx, name)
		if err != nil {
			return nil, err
		}
		status, _ := definition["status"].(map[string]any)
		conditions, _ := status["conditions"].([]any)
		for _, c := range conditions {
			if c, ok := c.(map[string]any); ok && c["type"] == "Established" && c["status"] == "True" {
				return definition, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("definition %s is not established: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Resources is the objects of one resource type at one version.
type Resources struct {
	client                              *Client
	group, version, resource, namespace string
}

func (r *Resources) ref(name string) *v1.ResourceRef {
	return &v1.ResourceRef{Group: r.group, Version: r.version, Resource: r.resource, Namespace: r.namespace, Name: name}
}

// InNamespace is the same resource type with another default namespace.
func (r *Resources) InNamespace(namespace string) *Resources {
	copy := *r
	copy.namespace = namespace
	return &copy
}

func (r *Resources) refOf(obj Object) *v1.ResourceRef {
	ref := r.ref("")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		if ns, ok := meta["namespace"].(string); ok && ns != "" {
			ref.Namespace = ns
		}
		if name, ok := meta["name"].(string); ok {
			ref.Name = name
		}
	}
	return ref
}

// writeRequest is the body and options of a write.
func writeRequest(obj Object, opts *WriteOptions) ([]byte, *v1.WriteOptions, error) {
	body, err := encode(obj)
	if err != nil {
		return nil, nil, err
	}
	o, err := opts.proto()
	return body, o, err
}

// Create creates an object; opts may be nil.
func (r *Resources) Create(ctx context.Context, obj Object, opts *WriteOptions) (Object, error) {
	body, o, err := writeRequest(obj, opts)
	if err != nil {
		return nil, err
	}
	ref := r.refOf(obj)
	ref.Name = ""
	resp, err := call(r.client, ctx, r.client.resources.Create, &v1.CreateResourceRequest{Ref: ref, Object: body, Options: o})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetObject())
}

// Get reads one object.
func (r *Resources) Get(ctx context.Context, name string) (Object, error) {
	resp, err := call(r.client, ctx, r.client.resources.Get, &v1.GetResourceRequest{Ref: r.ref(name)})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetObject())
}

// List reads one page; pass its Continue in the next call's options.
func (r *Resources) List(ctx context.Context, opts ListOptions) (*Page, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	resp, err := call(r.client, ctx, r.client.resources.List, &v1.ListResourcesRequest{Ref: r.ref(""), Options: opts.proto()})
	if err != nil {
		return nil, err
	}
	return page(resp.GetItems(), resp.GetResourceVersion(), resp.GetContinueToken(), resp.GetRemainingItemCount())
}

// Update replaces an object; its metadata.resourceVersion must be current,
// else the error is ErrConflict.
func (r *Resources) Update(ctx context.Context, obj Object, opts *WriteOptions) (Object, error) {
	body, o, err := writeRequest(obj, opts)
	if err != nil {
		return nil, err
	}
	resp, err := call(r.client, ctx, r.client.resources.Update, &v1.UpdateResourceRequest{Ref: r.refOf(obj), Object: body, Options: o})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetObject())
}

// UpdateStatus replaces an object's status.
func (r *Resources) UpdateStatus(ctx context.Context, obj Object, opts *WriteOptions) (Object, error) {
	body, o, err := writeRequest(obj, opts)
	if err != nil {
		return nil, err
	}
	resp, err := call(r.client, ctx, r.client.resources.UpdateStatus, &v1.UpdateStatusRequest{Ref: r.refOf(obj), Object: body, Options: o})
	if err != nil {
		return nil, err
	}
	return decode(resp.GetObject())
}

// PatchType is how a patch document is read.
type PatchType int

const (
	// MergePatch is an RFC 7386 JSON merge patch: a partial object.
	MergePatch PatchType = iota
	// JSONPatch is an RFC 6902 JSON patch: a list of operations.
	JSONPatch
)

// Patch applies patch (anything that marshals to the patch document) to
// the object, or with subresource "status" or "scale" to that subresource.
func (r *Resources) Patch(ctx context.Context, name string, kind PatchType, patch any, subresource string, opts *WriteOptions) (Object, error) {
	body, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	o, err := opts.proto()
	if err != nil {
		return nil, err
	}
	sub := map[string]v1.Subresource{"": v1.Subresource_SUBRESOURCE_UNSPECIFIED, "status": v1.Subresource_SUBRESOURCE_STATUS, "scale": v1.Subresource_SUBRESOURCE_SCALE}
	s, ok := sub[subresource]
	if !ok {
		return nil, fmt.Errorf("crdstore: subresource must be \"\", \"status\" or \"scale\", not %q", subresource)
	}
	pt := v1.PatchType_PATCH_TYPE_MERGE
	if kind == JSONPatch {
		pt = v1.PatchType_PATCH_TYPE_JSON
	}
	req := &v1.PatchResourceRequest{Ref: r.ref(name), PatchType: pt, Patch: body, Subresource: s, Options: o}
	resp, err := call(r.client, ctx, r.client.resources.Patch, req)
	if err != nil {
		return nil, err
	}
	return decode(resp.GetObject())
}

// DeleteOptions are a delete's preconditions and policy.
type DeleteOptions struct {
	UID               string
	ResourceVersion   string
	PropagationPolicy string
	DryRun            bool
}

// Delete deletes one object; opts may be nil.
func (r *Resources) Delete(ctx context.Context, name string, opts *DeleteOptions) (*Deleted, error) {
	o := &v1.DeleteOptions{}
	if opts != nil {
		o = &v1.DeleteOptions{PreconditionUid: opts.UID, PreconditionResourceVersion: opts.ResourceVersion, PropagationPolicy: opts.PropagationPolicy, DryRun: opts.DryRun}
	}
	resp, err := call(r.client, ctx, r.client.resources.Delete, &v1.DeleteResourceRequest{Ref: r.ref(name), Options: o})
	if err != nil {
		return nil, err
	}
	obj, err := decode(resp.GetObject())
	return &Deleted{Object: obj, Deleted: resp.GetDeleted()}, err
}

// Convert converts objects, each at any version of this resource's
// definition, to this handle's version, with the definition's conversion
// strategy (one webhook review for all of them). The objects are returned
// in order; an error about one names its index (objects[i]).
func (r *Resources) Convert(ctx context.Context, objects []Object) ([]Object, error) {
	bodies := make([][]byte, 0, len(objects))
	for _, obj := range objects {
		body, err := encode(obj)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, body)
	}
	req := &v1.ConvertRequest{Group: r.group, Resource: r.resource, DesiredVersion: r.version, Objects: bodies}
	resp, err := call(r.client, ctx, r.client.resources.Convert, req)
	if err != nil {
		return nil, err
	}
	out := make([]Object, 0, len(resp.GetObjects()))
	for _, body := range resp.GetObjects() {
		obj, err := decode(body)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}
