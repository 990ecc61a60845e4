package main

// -scale N: load N objects into each system as fast as it takes them,
// report the memory each costs beyond its bytes, then restart the server
// (SIGTERM, start) and time until a get answers: from the moment the process
// is started, through a fresh connection, as a client waiting for a
// restarted server sees it. Work the server goes on with in the background
// after it answers (crdstore's garbage collector reads every object) is
// timed apart, until the server's CPU settles, with its RSS then.

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

const (
	spaceScale   = "scale"
	scaleBatch   = 128 // etcd's default --max-txn-ops
	scaleClients = 256
)

// scaleRows are the labels of scaleOne's rows.
func scaleRows(c *config) []string {
	return []string{"objects loaded", "loaded per second", "RSS empty", "RSS loaded", "RSS per object",
		"overhead per object (RSS per object minus its " + thousands(int64(c.size)) + " bytes)", "data directory on disk",
		"restart: start until a get answers", "RSS after the restart",
		"restart: start until the CPU settles", "RSS once settled"}
}

func scaleName(i int) string { return fmt.Sprintf("s-%08d", i) }

func runScale(ctx context.Context, c *config) error {
	// crdstore is loaded once, over the first of its protocols listed.
	var systems []string
	crdstore := false
	for _, s := range c.systems {
		if s == "etcd" || !crdstore {
			systems = append(systems, s)
			crdstore = crdstore || s != "etcd"
		}
	}
	rows := scaleRows(c)
	values := map[string][]string{}
	fmt.Printf("bench -scale %d: %d-byte objects, %d clients, etcd in transactions of %d puts (load average %s)\n",
		c.scale, c.size, scaleClients, scaleBatch, loadAverage())
	for _, sys := range systems {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Printf("\n%s (load average %s)\n", systemTitle[sys], loadAverage())
		v, err := scaleOne(ctx, c, sys, filepath.Join(c.workDir, sys+"-scale"))
		// BENCH_KEEP_SCALE=<dir> keeps each loaded data directory there, to
		// restart it again (under a profiler, say) without loading it anew.
		if keep := os.Getenv("BENCH_KEEP_SCALE"); keep != "" {
			_ = os.Rename(filepath.Join(c.workDir, sys+"-scale"), filepath.Join(keep, sys+"-scale"))
		}
		_ = os.RemoveAll(filepath.Join(c.workDir, sys+"-scale"))
		if err != nil {
			fmt.Printf("  error: %v\n", err)
		}
		values[sys] = v
	}
	fmt.Printf("\n| |")
	for _, s := range systems {
		fmt.Printf(" %s |", systemTitle[s])
	}
	fmt.Printf("\n|---|")
	for range systems {
		fmt.Printf("---|")
	}
	fmt.Println()
	for i, row := range rows {
		fmt.Printf("| %s |", row)
		for _, s := range systems {
			cell := "—"
			if i < len(values[s]) {
				cell = values[s][i]
			}
			fmt.Printf(" %s |", cell)
		}
		fmt.Println()
	}
	return ctx.Err()
}

// scaleOne returns the rows of one system, as far as it got.
func scaleOne(ctx context.Context, c *config, sys, dataDir string) ([]string, error) {
	var out []string
	srv, t, err := launch(ctx, c, sys, dataDir)
	if err != nil {
		return out, err
	}
	defer func() { srv.stop() }()
	defer t.close()
	time.Sleep(time.Second)
	empty, err := srv.rss()
	if err != nil {
		return out, err
	}
	clients, err := t.clients(scaleClients)
	if err != nil {
		return out, err
	}
	batches := (c.scale + scaleBatch - 1) / scaleBatch
	var done atomic.Int64
	start := time.Now()
	rate, err := each(ctx, clients, batches, func(ctx context.Context, cl client, b int) error {
		names := make([]string, 0, scaleBatch)
		for i := b * scaleBatch; i < min(c.scale, (b+1)*scaleBatch); i++ {
			names = append(names, scaleName(i))
		}
		if err := cl.load(ctx, spaceScale, names); err != nil {
			return err
		}
		if n := done.Add(int64(len(names))); n*10/int64(c.scale) != (n-int64(len(names)))*10/int64(c.scale) {
			fmt.Printf("  %s objects in %v\n", thousands(n), time.Since(start).Round(time.Second))
		}
		return nil
	})
	for _, cl := range clients {
		cl.close()
	}
	if err != nil {
		return out, err
	}
	rate *= float64(c.scale) / float64(batches) // each counted batches per second
	time.Sleep(2 * time.Second)
	loaded, err := srv.rss()
	if err != nil {
		return out, err
	}
	perObject := float64(loaded-empty) / float64(c.scale)
	out = append(out, thousands(int64(c.scale)), thousands(int64(math.Round(rate))),
		mb(empty), mb(loaded), kb(perObject), kb(perObject-float64(c.size)), mb(diskUsage(dataDir)))
	for i, row := range out {
		fmt.Printf("  %s: %s\n", scaleRows(c)[i], row)
	}

	// The restart: stop, start on the same data, time until a get answers.
	srv.stop()
	t.close()
	begin := time.Now()
	switch sys {
	case "etcd":
		srv, err = startEtcd(c, "etcd", dataDir)
	default:
		srv, err = startCrdstore(c, "crdstore", dataDir)
	}
	if err != nil {
		return out, err
	}
	for {
		if err := probe(ctx, c, sys, srv); err == nil {
			break
		} else if time.Since(begin) > 5*time.Minute || ctx.Err() != nil {
			return out, fmt.Errorf("no get answered %v after the restart: %w", time.Since(begin), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	restart := time.Since(begin)
	after, err := srv.rss()
	if err != nil {
		return out, err
	}
	out = append(out, fmt.Sprintf("%.2f s", restart.Seconds()), mb(after))
	fmt.Printf("  restart %.2f s, RSS %s (CPU %v)\n", restart.Seconds(), mb(after), cpuOf(srv))
	settled, err := settle(ctx, srv)
	if err != nil {
		return out, err
	}
	settledRSS, err := srv.rss()
	if err != nil {
		return out, err
	}
	out = append(out, fmt.Sprintf("%.2f s", settled.Sub(begin).Seconds()), mb(settledRSS))
	fmt.Printf("  settled %.2f s after the start, RSS %s (CPU %v)\n", settled.Sub(begin).Seconds(), mb(settledRSS), cpuOf(srv))
	return out, nil
}

func cpuOf(srv *server) time.Duration {
	d, _ := srv.cpu()
	return d
}

// settle waits until the server uses under a tenth of a core over a second
// (at most two minutes) and returns when that second began.
func settle(ctx context.Context, srv *server) (time.Time, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		at := time.Now()
		before, err := srv.cpu()
		if err != nil {
			return at, err
		}
		select {
		case <-ctx.Done():
			return at, ctx.Err()
		case <-time.After(time.Second):
		}
		after, err := srv.cpu()
		if err != nil {
			return at, err
		}
		if after-before < 100*time.Millisecond || time.Now().After(deadline) {
			return at, nil
		}
	}
}

// probe gets one loaded object through a fresh connection.
func probe(ctx context.Context, c *config, sys string, srv *server) error {
	var t target
	switch sys {
	case "etcd":
		t = &etcdTarget{url: srv.grpcAddr, size: c.size}
	case "http":
		t = &crdHTTP{base: "http://" + srv.httpAddr, size: c.size}
	default:
		t = &crdGRPC{addr: srv.grpcAddr, size: c.size}
	}
	cls, err := t.clients(1)
	if err != nil {
		return err
	}
	defer cls[0].close()
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return cls[0].get(pctx, spaceScale, scaleName(0))
}

func mb(b int64) string { return thousands(b/1_000_000) + " MB" }

func kb(b float64) string { return fmt.Sprintf("%.2f KB", b/1000) }

func diskUsage(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
