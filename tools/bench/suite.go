package main

// The suite: for each round, each system in turn on a fresh server, every
// figure, then a table of the round with its ratios to etcd, and at the
// end the medians over the rounds.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Names of the collections (namespaces; etcd key prefixes) each figure uses.
const (
	spaceCreate1    = "create1"
	spaceCreate     = "create"
	spaceList       = "list"
	spaceNoWatch    = "nowatch"
	spaceWatch      = "watch"
	watchersPerConn = 100
)

func listName(i int) string { return fmt.Sprintf("l-%07d", i) }

// launch starts a fresh server for sys and returns it with its target.
func launch(ctx context.Context, c *config, sys, dataDir string) (*server, target, error) {
	if sys == "etcd" {
		s, err := startEtcd(c, "etcd", dataDir)
		if err != nil {
			return nil, nil, err
		}
		if err := etcdReady(ctx, s.grpcAddr); err != nil {
			s.stop()
			return nil, nil, err
		}
		return s, &etcdTarget{url: s.grpcAddr, size: c.size}, nil
	}
	s, err := startCrdstore(c, "crdstore", dataDir)
	if err != nil {
		return nil, nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := define(dctx, s.grpcAddr); err != nil {
		s.stop()
		return nil, nil, err
	}
	if sys == "http" {
		return s, &crdHTTP{base: "http://" + s.httpAddr, size: c.size, watches: newTransport(c.watchers)}, nil
	}
	return s, &crdGRPC{addr: s.grpcAddr, size: c.size}, nil
}

// etcdReady waits until etcd answers a read, with a fresh client per try
// (a client's reconnect backoff would add seconds).
func etcdReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		cl, err := newEtcdClient(url)
		if err == nil {
			tctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			_, err = cl.Get(tctx, "/ready")
			cancel()
			cl.Close()
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("etcd did not answer in 60 s: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func runSuite(ctx context.Context, c *config) error {
	figs := onlyFigures(c, figureList(c))
	rounds := make([]roundResult, 0, c.rounds)
	fmt.Printf("bench: %d rounds of %v; %d clients, %d-byte objects, lists of %d, %d watchers at %d writes/s\n",
		c.rounds, c.systems, c.clients, c.size, c.listObjects, c.watchers, c.watchRate)
	for r := 1; r <= c.rounds; r++ {
		res := roundResult{values: map[string]map[string]float64{}, loadBefore: loadAverage()}
		fmt.Printf("\n## round %d (load average %s)\n", r, res.loadBefore)
		for _, sys := range c.systems {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Printf("\n%s, round %d (load average %s)\n", systemTitle[sys], r, loadAverage())
			dataDir := filepath.Join(c.workDir, fmt.Sprintf("%s-%d", sys, r))
			values, err := runSystem(ctx, c, sys, dataDir, figs)
			_ = os.RemoveAll(dataDir)
			if err != nil {
				fmt.Printf("  error: %v\n", err)
			}
			res.values[sys] = values
		}
		res.loadAfter = loadAverage()
		rounds = append(rounds, res)
		printRound(c, figs, r, res)
	}
	printMedians(c, figs, rounds)
	return ctx.Err()
}

// runSystem measures every figure of one system on a fresh server; the
// figures measured before an error are kept.
func runSystem(ctx context.Context, c *config, sys, dataDir string, figs []figure) (map[string]float64, error) {
	v := map[string]float64{}
	srv, t, err := launch(ctx, c, sys, dataDir)
	if err != nil {
		return v, err
	}
	defer srv.stop()
	defer t.close()
	clients, err := t.clients(c.clients)
	if err != nil {
		return v, err
	}
	defer func() {
		for _, cl := range clients {
			cl.close()
		}
	}()
	show := func(key string, value float64) {
		v[key] = value
		for _, f := range figs {
			if f.key == key {
				fmt.Printf("  %-52s %12s\n", f.label, f.format(value))
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if only(c, "write", "get", "list") {
		if err := runThroughput(ctx, c, srv, clients, show); err != nil {
			return v, err
		}
	}
	if !only(c, "watch") {
		return v, nil
	}

	// Writes at a fixed rate, without watchers then with them.
	lats, err := openLoop(ctx, clients, c.watchRate, c.watchWrites, func(ctx context.Context, cl client, i int) error {
		return cl.create(ctx, spaceNoWatch, fmt.Sprintf("n-%07d", i))
	}, func(int) {})
	if err != nil {
		return v, fmt.Errorf("writes without watchers: %w", err)
	}
	show("nowatch_write_p99", ms(percentile(lats, 99)))
	// The CPU both sides spend over the watch load (its writes included),
	// per event delivered: they share the machine's cores, so the load
	// generator's part bounds how much the server can deliver.
	spent, err := markCPU(srv)
	if err != nil {
		return v, err
	}
	w, err := watchLoad(ctx, c, t, clients)
	if err != nil {
		return v, fmt.Errorf("watch load: %w", err)
	}
	if err := spent.showPer(srv, w.events, show, "watch_cpu", "watch_bench_cpu"); err != nil {
		return v, err
	}
	show("watch_delivered", w.delivered)
	show("watch_cutoffs", w.cutoffs)
	show("watch_c2r_p50", w.c2rP50)
	show("watch_c2r_p99", w.c2rP99)
	show("watch_write_p99", w.writeP99)

	rss, err := srv.rss()
	if err != nil {
		return v, err
	}
	show("rss", float64(rss)/1e6)
	return v, nil
}

// runThroughput measures the figures before the watch scenario: creates,
// updates, gets and lists.
func runThroughput(ctx context.Context, c *config, srv *server, clients []client, show func(string, float64)) error {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	if only(c, "write") {
		if err := runCreates(ctx, c, srv, clients, show); err != nil {
			return err
		}
	}

	// The listed collection; client w creates, then updates, objects w, w+clients, ...
	if _, err := each(ctx, clients, c.listObjects, func(ctx context.Context, cl client, i int) error {
		return cl.create(ctx, spaceList, listName(i))
	}); err != nil {
		return fmt.Errorf("filling the list: %w", err)
	}
	if only(c, "write") {
		spent, err := markCPU(srv)
		if err != nil {
			return err
		}
		rate, lats, err := closedLoop(ctx, clients, c.duration, func(ctx context.Context, w int, cl client, i int) error {
			owned := (c.listObjects - w + len(clients) - 1) / len(clients)
			if owned <= 0 {
				return errNothingToDo
			}
			return cl.update(ctx, spaceList, listName(w+(i%owned)*len(clients)), i+1)
		})
		if err != nil {
			return fmt.Errorf("updates: %w", err)
		}
		if err := spent.showPer(srv, int64(len(lats)), show, "update_cpu", "update_bench_cpu"); err != nil {
			return err
		}
		show("update", rate)
	}
	if only(c, "get") {
		// The CPU both sides spend per get: they share the machine's
		// cores, so the load generator's part bounds the rate too.
		spent, err := markCPU(srv)
		if err != nil {
			return err
		}
		rate, lats, err := closedLoop(ctx, clients, c.duration, func(ctx context.Context, _ int, cl client, _ int) error {
			return cl.get(ctx, spaceList, listName(rand.IntN(c.listObjects)))
		})
		if err != nil {
			return fmt.Errorf("gets: %w", err)
		}
		if err := spent.showPer(srv, int64(len(lats)), show, "get_cpu", "get_bench_cpu"); err != nil {
			return err
		}
		show("get", rate)
		show("get_p99", ms(percentile(lats, 99)))
	}
	if !only(c, "list") {
		return nil
	}

	// Lists, whole and paged, with the server's CPU time.
	for _, l := range []struct {
		limit           int64
		timeKey, cpuKey string
	}{{0, "list", "list_cpu"}, {int64(c.listPage), "list_paged", "list_paged_cpu"}} {
		if n, err := clients[0].list(ctx, spaceList, l.limit); err != nil || n != c.listObjects {
			return fmt.Errorf("list (limit %d) read %d of %d objects: %v", l.limit, n, c.listObjects, err)
		}
		cpu0, err := srv.cpu()
		if err != nil {
			return err
		}
		// At least listReps lists and 2 s of them: the CPU times count
		// in 10 ms ticks.
		var times []time.Duration
		for begin := time.Now(); len(times) < c.listReps || time.Since(begin) < 2*time.Second; {
			start := time.Now()
			if _, err := clients[0].list(ctx, spaceList, l.limit); err != nil {
				return fmt.Errorf("list: %w", err)
			}
			times = append(times, time.Since(start))
		}
		cpu1, err := srv.cpu()
		if err != nil {
			return err
		}
		show(l.timeKey, ms(percentile(times, 50)))
		show(l.cpuKey, ms((cpu1-cpu0)/time.Duration(len(times))))
	}

	return nil
}

type watchFigures struct {
	delivered, cutoffs, c2rP50, c2rP99, writeP99 float64
	events                                       int64 // events delivered, of the objects written
}

// watchLoad opens c.watchers watches of one collection from its current
// revision, waits until each has seen a first object, writes
// c.watchWrites objects at c.watchRate a second, and waits (up to
// c.drain) until every watcher has every one. Commit-to-receipt is from a
// write's acknowledgement to its event's arrival, so an event that
// arrives before its write is acknowledged counts negative.
func watchLoad(ctx context.Context, c *config, t target, clients []client) (watchFigures, error) {
	var out watchFigures
	rev, err := t.revision(ctx, spaceWatch)
	if err != nil {
		return out, err
	}
	n, watchers := c.watchWrites, c.watchers
	t0 := time.Now()
	since := func() int32 { return int32(time.Since(t0).Microseconds()) }
	// received[w*n+i] is when watcher w received object i, +1 µs (0: not yet).
	received := make([]int32, watchers*n)
	counts := make([]atomic.Int64, watchers)
	ready := make([]atomic.Bool, watchers)
	var cuts atomic.Int64
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, watchers)
	for w := 0; w < watchers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := received[w*n : (w+1)*n]
			seen := func(name []byte) {
				if string(name) == "sentinel" {
					ready[w].Store(true)
					return
				}
				i, ok := seq(name)
				if ok && i < n && mine[i] == 0 {
					mine[i] = since() + 1
					counts[w].Add(1)
				}
			}
			if err := t.watch(wctx, w/watchersPerConn, spaceWatch, rev, seen, func() { cuts.Add(1) }); err != nil {
				errs <- err
			}
		}()
	}
	if err := clients[0].create(ctx, spaceWatch, "sentinel"); err != nil {
		return out, err
	}
	deadline := time.Now().Add(60*time.Second + time.Duration(watchers)*10*time.Millisecond)
	for !all(ready) {
		if time.Now().After(deadline) {
			return out, fmt.Errorf("not every watcher saw the first object in time")
		}
		if err := poll(ctx, errs); err != nil {
			return out, err
		}
	}
	acked := make([]int32, n)
	lats, err := openLoop(ctx, clients, c.watchRate, n, func(ctx context.Context, cl client, i int) error {
		return cl.create(ctx, spaceWatch, fmt.Sprintf("w-%07d", i))
	}, func(i int) { acked[i] = since() })
	if err != nil {
		return out, err
	}
	out.writeP99 = float64(percentile(lats, 99)) / float64(time.Millisecond)
	total := int64(watchers) * int64(n)
	deadline = time.Now().Add(c.drain)
	for sum(counts) < total && time.Now().Before(deadline) {
		if err := poll(ctx, errs); err != nil {
			return out, err
		}
	}
	stop()
	wg.Wait()
	out.events = sum(counts)
	out.delivered = 100 * float64(out.events) / float64(total)
	out.cutoffs = float64(cuts.Load())
	// Commit-to-receipt, in place: received becomes the latencies.
	k := 0
	for w := 0; w < watchers; w++ {
		for i := 0; i < n; i++ {
			if r := received[w*n+i]; r > 0 {
				received[k] = r - 1 - acked[i]
				k++
			}
		}
	}
	lat := received[:k]
	slices.Sort(lat)
	at := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p/100*float64(len(lat))))]) / 1000
	}
	out.c2rP50, out.c2rP99 = at(50), at(99)
	return out, nil
}

// seq is i of an object named w-<i>.
func seq(name []byte) (int, bool) {
	if len(name) < 3 || name[0] != 'w' || name[1] != '-' {
		return 0, false
	}
	i := 0
	for _, d := range name[2:] {
		if d < '0' || d > '9' {
			return 0, false
		}
		i = i*10 + int(d-'0')
	}
	return i, true
}

func all(flags []atomic.Bool) bool {
	for i := range flags {
		if !flags[i].Load() {
			return false
		}
	}
	return true
}

func sum(counts []atomic.Int64) int64 {
	var s int64
	for i := range counts {
		s += counts[i].Load()
	}
	return s
}

// poll waits a moment, failing if ctx ended or a watcher failed.
func poll(ctx context.Context, errs chan error) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case err := <-errs:
		return err
	case <-time.After(20 * time.Millisecond):
		return nil
	}
}

// runCreates measures creates, one client then all of them, with the CPU
// both sides spend per create of the second.
func runCreates(ctx context.Context, c *config, srv *server, clients []client, show func(string, float64)) error {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rate, lats, err := closedLoop(ctx, clients[:1], c.duration, func(ctx context.Context, _ int, cl client, i int) error {
		return cl.create(ctx, spaceCreate1, fmt.Sprintf("a-%07d", i))
	})
	if err != nil {
		return fmt.Errorf("creates, 1 client: %w", err)
	}
	show("create1", rate)
	show("create1_p50", ms(percentile(lats, 50)))
	spent, err := markCPU(srv)
	if err != nil {
		return err
	}
	rate, lats, err = closedLoop(ctx, clients, c.duration, func(ctx context.Context, w int, cl client, i int) error {
		return cl.create(ctx, spaceCreate, fmt.Sprintf("b-%02d-%07d", w, i))
	})
	if err != nil {
		return fmt.Errorf("creates: %w", err)
	}
	if err := spent.showPer(srv, int64(len(lats)), show, "create_cpu", "create_bench_cpu"); err != nil {
		return err
	}
	show("create", rate)
	return nil
}
