// Command bench measures crdstore side by side with etcd: it starts each
// system on loopback with a fresh data directory, drives it with the same
// load (1 KB objects, 64 clients), and prints each figure per system, its
// ratio to etcd, and the medians of interleaved rounds. crdstore is driven
// over gRPC and over its Kubernetes HTTP gateway (JSON), etcd with
// clientv3. scripts/bench builds both servers and runs it.
//
// With -scale N it instead loads N objects into each system and reports
// the memory each object costs and the time a restart takes to serve; with
// -proxied it measures gets direct and through nginx (proxied.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config is the whole run, from the flags.
type config struct {
	crdstoreBin, etcdBin, workDir string
	systems                       []string
	rounds                        int
	clients                       int
	size                          int
	duration                      time.Duration
	listObjects                   int
	listPage                      int
	listReps                      int
	watchers                      int
	watchRate                     int
	watchWrites                   int
	drain                         time.Duration
	scale                         int
	// only names the parts to run (write, get, list, watch), or none for the
	// whole suite.
	only []string

	// proxied runs proxied.go's figures instead, with nginxBin in front.
	proxied  bool
	nginxBin string
}

func main() {
	var c config
	var systems string
	var quick bool
	var only string
	flag.StringVar(&c.crdstoreBin, "crdstore", "target/release/crdstore", "the crdstore binary")
	flag.StringVar(&c.etcdBin, "etcd", "target/gobin/etcd", "the etcd binary")
	flag.StringVar(&c.workDir, "dir", "", "where data directories and server logs go (required; removed by scripts/bench)")
	flag.StringVar(&systems, "systems", "grpc,http,etcd", "the systems to drive, in round order: grpc, http, etcd")
	flag.IntVar(&c.rounds, "rounds", 3, "interleaved rounds")
	flag.IntVar(&c.clients, "clients", 64, "concurrent clients, each with its own connection")
	flag.IntVar(&c.size, "size", 1024, "bytes of each object as written (the JSON document; etcd's value is the same bytes)")
	flag.DurationVar(&c.duration, "duration", 5*time.Second, "measuring time of each rate figure")
	flag.IntVar(&c.listObjects, "list", 10000, "objects in the listed collection")
	flag.IntVar(&c.listPage, "page", 500, "page size of the paged list")
	flag.IntVar(&c.listReps, "list-reps", 5, "lists of each kind measured, at least (and at least 2 s of them)")
	flag.IntVar(&c.watchers, "watchers", 1000, "watchers of the watch figure")
	flag.IntVar(&c.watchRate, "watch-rate", 1000, "writes per second of the watch figure")
	flag.IntVar(&c.watchWrites, "watch-writes", 10000, "objects written during the watch figure")
	flag.DurationVar(&c.drain, "drain", 10*time.Second, "how long after the last write watchers may take to receive everything")
	flag.IntVar(&c.scale, "scale", 0, "instead of the suite: load this many objects and report RSS per object and restart time")
	flag.StringVar(&only, "only", "", "run only these parts instead of the whole suite, comma-separated: write (creates and updates), get, list (whole and paged lists of 10,000 and the server CPU per list), watch (writes without watchers, then the watch load, then RSS; about a minute a round)")
	flag.StringVar(&c.nginxBin, "nginx", "nginx", "the nginx binary of -proxied")
	flag.BoolVar(&c.proxied, "proxied", false, "instead of the suite: gets direct and through nginx's grpc_pass, interleaved, with crdstore's and nginx's CPU per get")
	flag.BoolVar(&quick, "quick", false, "small counts for a smoke test: 1 round, 1,000 objects, 100 watchers, 1 s figures")
	flag.Parse()
	if quick {
		c.rounds, c.duration, c.listObjects, c.listReps = 1, time.Second, 1000, 3
		c.watchers, c.watchWrites, c.drain = 100, 1000, 5*time.Second
	}
	if c.workDir == "" {
		fmt.Fprintln(os.Stderr, "bench: -dir is required")
		os.Exit(2)
	}
	var err error
	if c.only, err = parseOnly(only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	for _, s := range strings.Split(systems, ",") {
		if s != "grpc" && s != "http" && s != "etcd" {
			fmt.Fprintf(os.Stderr, "bench: unknown system %q (grpc, http, etcd)\n", s)
			os.Exit(2)
		}
		c.systems = append(c.systems, s)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.proxied {
		err = runProxied(ctx, &c)
	} else if c.scale > 0 {
		err = runScale(ctx, &c)
	} else {
		err = runSuite(ctx, &c)
	}
	stopAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
