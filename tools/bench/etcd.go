package main

// etcd through clientv3, used as kube-apiserver uses it: an object is a key
// /bench/<namespace>/<name> whose value is the object's JSON; gets are
// serializable, lists read the prefix whole or in pages at the first
// page's revision. Watches are opened as a clientv3 user opens them: 100
// watchers share a client, and clientv3 puts the watches of a client whose
// contexts carry the same metadata on one gRPC stream (etcd then sends each
// watch its own responses on it).

import (
	"context"
	"sync"
	"time"

	crdstore "github.com/crdstore/crdstore/clients/go"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

type etcdTarget struct {
	url  string
	size int

	mu    sync.Mutex
	conns map[int]*clientv3.Client
}

func newEtcdClient(url string) (*clientv3.Client, error) {
	// The same flow-control windows as the crdstore gRPC clients: fixed
	// windows turn off grpc-go's bandwidth probing, a PING after nearly
	// every response, which would cost etcd what it no longer costs
	// crdstore.
	return clientv3.New(clientv3.Config{Endpoints: []string{url}, DialTimeout: 10 * time.Second, Logger: zap.NewNop(),
		DialOptions: crdstore.WindowOptions()})
}

func key(space, name string) string { return etcdRoot + space + "/" + name }

func (t *etcdTarget) clients(n int) ([]client, error) {
	out := make([]client, n)
	for i := range out {
		c, err := newEtcdClient(t.url)
		if err != nil {
			return nil, err
		}
		out[i] = &etcdClient{t: t, c: c}
	}
	return out, nil
}

func (t *etcdTarget) revision(ctx context.Context, space string) (string, error) {
	c, err := t.watchConn(-1)
	if err != nil {
		return "", err
	}
	resp, err := c.Get(ctx, key(space, ""), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return "", err
	}
	return itoa(resp.Header.Revision), nil
}

func (t *etcdTarget) watchConn(i int) (*clientv3.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conns == nil {
		t.conns = map[int]*clientv3.Client{}
	}
	if c, ok := t.conns[i]; ok {
		return c, nil
	}
	c, err := newEtcdClient(t.url)
	if err != nil {
		return nil, err
	}
	t.conns[i] = c
	return c, nil
}

func (t *etcdTarget) watch(ctx context.Context, conn int, space, rv string, seen func([]byte), cut func()) error {
	c, err := t.watchConn(conn)
	if err != nil {
		return err
	}
	prefix := key(space, "")
	next := atoi(rv) + 1
	for ctx.Err() == nil {
		for resp := range c.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(next)) {
			if resp.Canceled || resp.Err() != nil {
				if resp.CompactRevision > 0 {
					next = resp.CompactRevision
				}
				break
			}
			for _, ev := range resp.Events {
				next = ev.Kv.ModRevision + 1
				seen(ev.Kv.Key[len(prefix):])
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		cut()
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

func (t *etcdTarget) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.Close()
	}
	t.conns = nil
}

type etcdClient struct {
	t *etcdTarget
	c *clientv3.Client
}

func (c *etcdClient) create(ctx context.Context, space, name string) error {
	_, err := c.c.Put(ctx, key(space, name), string(object(space, name, 0, "", c.t.size)))
	return err
}

func (c *etcdClient) update(ctx context.Context, space, name string, gen int) error {
	_, err := c.c.Put(ctx, key(space, name), string(object(space, name, gen, "", c.t.size)))
	return err
}

func (c *etcdClient) get(ctx context.Context, space, name string) error {
	_, err := c.c.Get(ctx, key(space, name), clientv3.WithSerializable())
	return err
}

func (c *etcdClient) list(ctx context.Context, space string, limit int64) (int, error) {
	prefix := key(space, "")
	end := clientv3.GetPrefixRangeEnd(prefix)
	if limit == 0 {
		resp, err := c.c.Get(ctx, prefix, clientv3.WithRange(end))
		if err != nil {
			return 0, err
		}
		return len(resp.Kvs), nil
	}
	n, from, rev := 0, prefix, int64(0)
	for {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(limit)}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := c.c.Get(ctx, from, opts...)
		if err != nil {
			return n, err
		}
		rev = resp.Header.Revision
		n += len(resp.Kvs)
		if !resp.More || len(resp.Kvs) == 0 {
			return n, nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

func (c *etcdClient) load(ctx context.Context, space string, names []string) error {
	ops := make([]clientv3.Op, len(names))
	for i, name := range names {
		ops[i] = clientv3.OpPut(key(space, name), string(object(space, name, 0, "", c.t.size)))
	}
	_, err := c.c.Txn(ctx).Then(ops...).Commit()
	return err
}

func (c *etcdClient) close() { c.c.Close() }
