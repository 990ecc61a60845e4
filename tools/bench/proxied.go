package main

// -proxied: gets at -clients clients straight to crdstore's gRPC port and
// through nginx's grpc_pass in front of the same server, interleaved
// (direct, nginx, direct, nginx, ...), each round with fresh connections.
// It reports the rate, the p99, the CPU crdstore spends per get either way
// (an answer through nginx should cost crdstore what a direct one does:
// nginx keeps its upstream connections open), and nginx's own CPU per get
// beside (master and workers). nginx runs with a config of its own here
// (grpc_pass, upstream keepalive, no auth: the bench measures the proxying,
// not an htpasswd lookup), its prefix in the work directory.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const nginxConfig = `worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    upstream crdstore_grpc {
        server %[2]s;
        keepalive 128;
    }
    server {
        listen %[3]s http2;
        location / {
            grpc_pass grpc://crdstore_grpc;
        }
    }
}
`

// startNginx runs nginx in front of grpcAddr, on a free loopback port.
func startNginx(c *config, grpcAddr string) (*server, string, error) {
	prefix := filepath.Join(c.workDir, "nginx")
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	listen := fmt.Sprintf("127.0.0.1:%d", port)
	conf := filepath.Join(prefix, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConfig, prefix, grpcAddr, listen)), 0o644); err != nil {
		return nil, "", err
	}
	s, out, err := start("nginx", c.workDir, prefix, c.nginxBin, "-p", prefix, "-c", conf, "-g", "daemon off;")
	if err != nil {
		return nil, "", err
	}
	go func() { _, _ = out.stdout.WriteTo(discard{}) }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if conn, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
			conn.Close()
			return s, listen, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, "", fmt.Errorf("nginx did not listen in 30 s\n%s", out.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// treeCPU is the CPU time of pid and of its children (nginx's workers).
func treeCPU(pid int) (time.Duration, error) {
	total, err := pidCPU(pid)
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", child))
		if err != nil || !strings.Contains(string(status), fmt.Sprintf("\nPPid:\t%d\n", pid)) {
			continue
		}
		if d, err := pidCPU(child); err == nil {
			total += d
		}
	}
	return total, nil
}

type proxiedRow struct {
	rate, p99ms, crdstoreUs, nginxUs, benchUs float64
}

// proxiedRound measures gets to addr; nginxPid is 0 for the direct path.
func proxiedRound(ctx context.Context, c *config, srv *server, addr string, nginxPid int) (proxiedRow, error) {
	clients, err := (&crdGRPC{addr: addr, size: c.size}).clients(c.clients)
	if err != nil {
		return proxiedRow{}, err
	}
	defer func() {
		for _, cl := range clients {
			cl.close()
		}
	}()
	// A warm-up, so that every connection (and nginx's upstream ones) is open.
	if _, _, err := closedLoop(ctx, clients, 500*time.Millisecond, func(ctx context.Context, _ int, cl client, _ int) error {
		return cl.get(ctx, spaceList, listName(rand.IntN(c.listObjects)))
	}); err != nil {
		return proxiedRow{}, err
	}
	spent, err := markCPU(srv)
	if err != nil {
		return proxiedRow{}, err
	}
	var proxyBefore time.Duration
	if nginxPid != 0 {
		if proxyBefore, err = treeCPU(nginxPid); err != nil {
			return proxiedRow{}, err
		}
	}
	rate, lats, err := closedLoop(ctx, clients, c.duration, func(ctx context.Context, _ int, cl client, _ int) error {
		return cl.get(ctx, spaceList, listName(rand.IntN(c.listObjects)))
	})
	if err != nil {
		return proxiedRow{}, fmt.Errorf("gets: %w", err)
	}
	row := proxiedRow{rate: rate, p99ms: float64(percentile(lats, 99)) / float64(time.Millisecond)}
	n := float64(len(lats))
	show := func(key string, v float64) {
		if key == "crdstore" {
			row.crdstoreUs = v
		} else {
			row.benchUs = v
		}
	}
	if err := spent.showPer(srv, int64(len(lats)), show, "crdstore", "bench"); err != nil {
		return proxiedRow{}, err
	}
	if nginxPid != 0 {
		proxyAfter, err := treeCPU(nginxPid)
		if err != nil {
			return proxiedRow{}, err
		}
		row.nginxUs = float64(proxyAfter-proxyBefore) / float64(time.Microsecond) / n
	}
	return row, nil
}

func runProxied(ctx context.Context, c *config) error {
	srv, err := startCrdstore(c, "crdstore", filepath.Join(c.workDir, "crdstore-data"))
	if err != nil {
		return err
	}
	defer srv.stop()
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := define(dctx, srv.grpcAddr); err != nil {
		return err
	}
	proxy, listen, err := startNginx(c, srv.grpcAddr)
	if err != nil {
		return err
	}
	defer proxy.stop()
	fill, err := (&crdGRPC{addr: srv.grpcAddr, size: c.size}).clients(8)
	if err != nil {
		return err
	}
	if _, err := each(ctx, fill, c.listObjects, func(ctx context.Context, cl client, i int) error {
		return cl.create(ctx, spaceList, listName(i))
	}); err != nil {
		return fmt.Errorf("filling: %w", err)
	}
	for _, cl := range fill {
		cl.close()
	}
	fmt.Printf("gets of %d objects of %d bytes at %d clients, %s a figure, direct and through nginx's grpc_pass\n\n",
		c.listObjects, c.size, c.clients, c.duration)
	fmt.Println("| round | path | gets/s | p99 ms | crdstore CPU µs/get | nginx CPU µs/get | bench CPU µs/get | load |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	var direct, proxied []proxiedRow
	for r := 1; r <= c.rounds; r++ {
		for _, path := range []string{"direct", "nginx"} {
			addr, pid := srv.grpcAddr, 0
			if path == "nginx" {
				addr, pid = listen, proxy.pid()
			}
			row, err := proxiedRound(ctx, c, srv, addr, pid)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", path, r, err)
			}
			nginxCell := "—"
			if pid != 0 {
				nginxCell = significant(row.nginxUs)
				proxied = append(proxied, row)
			} else {
				direct = append(direct, row)
			}
			fmt.Printf("| %d | %s | %s | %s | %s | %s | %s | %s |\n", r, path, thousands(int64(row.rate)),
				significant(row.p99ms), significant(row.crdstoreUs), nginxCell, significant(row.benchUs), loadAverage())
		}
	}
	med := func(rows []proxiedRow, v func(proxiedRow) float64) float64 {
		rounds := make([]roundResult, len(rows))
		for i, row := range rows {
			rounds[i] = roundResult{values: map[string]map[string]float64{"x": {"v": v(row)}}}
		}
		return median(rounds, func(r roundResult) float64 { return r.value("x", "v") })
	}
	d := med(direct, func(r proxiedRow) float64 { return r.crdstoreUs })
	p := med(proxied, func(r proxiedRow) float64 { return r.crdstoreUs })
	fmt.Printf("\nmedians: crdstore CPU per get %s µs direct, %s µs through nginx (%+.1f%%); nginx's own %s µs per get; gets/s %s direct, %s through nginx\n",
		significant(d), significant(p), (p/d-1)*100, significant(med(proxied, func(r proxiedRow) float64 { return r.nginxUs })),
		thousands(int64(med(direct, func(r proxiedRow) float64 { return r.rate }))),
		thousands(int64(med(proxied, func(r proxiedRow) float64 { return r.rate }))))
	return nil
}
