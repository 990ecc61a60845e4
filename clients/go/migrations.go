package crdstore

import (
	"context"
	"errors"
	"io"

	v1 "github.com/crdstore/crdstore/clients/go/crdstorev1"
)

// Migrations starts and follows storage-version migrations: each rewrites
// a definition's stored objects at its current storage version, then trims
// status.storedVersions to it.
type Migrations struct {
	client *Client
}

// Migration is a storage-version migration and its progress.
type Migration struct {
	Name       string
	Definition string
	// Phase is "Running", "Succeeded" or "Failed".
	Phase         string
	TargetVersion string
	// Migrated objects were rewritten at TargetVersion.
	Migrated uint64
	// Scanned of Total objects were looked at in the current pass.
	Scanned, Total uint64
	Message        string
	// Object is the storagemigration.k8s.io/v1 StorageVersionMigration.
	Object Object
}

// Done reports whether the migration has succeeded or failed.
func (m *Migration) Done() bool { return m.Phase == "Succeeded" || m.Phase == "Failed" }

func migration(m *v1.Migration) (*Migration, error) {
	obj, err := decode(m.GetObject())
	if err != nil {
		return nil, err
	}
	return &Migration{
		Name: m.GetName(), Definition: m.GetDefinition(), Phase: m.GetPhase(), TargetVersion: m.GetTargetVersion(),
		Migrated: m.GetMigrated(), Scanned: m.GetScanned(), Total: m.GetTotal(), Message: m.GetMessage(), Object: obj,
	}, nil
}

// Start starts migrating definition ("<plural>.<group>"); name is generated
// when empty.
func (m *Migrations) Start(ctx context.Context, definition, name string) (*Migration, error) {
	resp, err := call(m.client, ctx, m.client.migrations.Start, &v1.StartMigrationRequest{Definition: definition, Name: name})
	if err != nil {
		return nil, err
	}
	return migration(resp)
}

// Get reads one migration.
func (m *Migrations) Get(ctx context.Context, name string) (*Migration, error) {
	resp, err := call(m.client, ctx, m.client.migrations.Get, &v1.GetMigrationRequest{Name: name})
	if err != nil {
		return nil, err
	}
	return migration(resp)
}

// List reads every migration, by name.
func (m *Migrations) List(ctx context.Context) ([]*Migration, error) {
	resp, err := call(m.client, ctx, m.client.migrations.List, &v1.ListMigrationsRequest{})
	if err != nil {
		return nil, err
	}
	out := make([]*Migration, 0, len(resp.GetMigrations()))
	for _, item := range resp.GetMigrations() {
		mig, err := migration(item)
		if err != nil {
			return nil, err
		}
		out = append(out, mig)
	}
	return out, nil
}

// Follow calls progress with the migration now, then after every step,
// until it has succeeded or failed; it returns the last state.
func (m *Migrations) Follow(ctx context.Context, name string, progress func(*Migration)) (*Migration, error) {
	stream, err := m.client.migrations.Watch(ctx, &v1.WatchMigrationRequest{Name: name})
	if err != nil {
		return nil, fromRPC(err)
	}
	var last *Migration
	for {
		item, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			if last == nil {
				return nil, io.ErrUnexpectedEOF
			}
			return last, nil
		}
		if err != nil {
			return last, fromRPC(err)
		}
		if last, err = migration(item); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(last)
		}
	}
}

// Run starts a migration and follows it to its end (see Follow).
func (m *Migrations) Run(ctx context.Context, definition, name string, progress func(*Migration)) (*Migration, error) {
	started, err := m.Start(ctx, definition, name)
	if err != nil {
		return nil, err
	}
	return m.Follow(ctx, started.Name, progress)
}
