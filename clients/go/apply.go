package crdstore

import (
	"context"
	"fmt"

	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// ApplyOptions are a server-side apply's manager and flags.
type ApplyOptions struct {
	// FieldManager owns the applied fields. Required.
	FieldManager string
	// Force takes over fields other managers own instead of failing with
	// an *ApplyConflict.
	Force bool
	// DryRun merges and validates without storing anything.
	DryRun bool
	// Subresource is "" (the object) or "status".
	Subresource string
}

// Applied is a server-side apply's outcome: the object as stored (or as it
// would be, on a dry run), and whether the apply created it.
type Applied struct {
	Object  Object
	Created bool
}

// Apply is server-side apply of obj, the fields opts.FieldManager has an
// opinion on, to the object (created when it does not exist) or its
// status. Changing fields another manager owns fails with an
// *ApplyConflict listing them (errors.Is(err, ErrConflict) holds too),
// unless opts.Force takes them over.
func (r *Resources) Apply(ctx context.Context, obj Object, opts ApplyOptions) (*Applied, error) {
	body, err := encode(obj)
	if err != nil {
		return nil, err
	}
	sub := map[string]v1.Subresource{"": v1.Subresource_SUBRESOURCE_UNSPECIFIED, "status": v1.Subresource_SUBRESOURCE_STATUS}
	s, ok := sub[opts.Subresource]
	if !ok {
		return nil, fmt.Errorf("crdstore: an apply's subresource must be \"\" or \"status\", not %q", opts.Subresource)
	}
	req := &v1.ApplyResourceRequest{
		Ref:          r.refOf(obj),
		Object:       body,
		FieldManager: opts.FieldManager,
		Force:        opts.Force,
		DryRun:       opts.DryRun,
		Subresource:  s,
	}
	resp, err := call(r.client, ctx, r.client.resources.Apply, req)
	if err != nil {
		return nil, err
	}
	out, err := decode(resp.GetObject())
	if err != nil {
		return nil, err
	}
	return &Applied{Object: out, Created: resp.GetCreated()}, nil
}
