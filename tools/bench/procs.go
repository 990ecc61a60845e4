package main

// The servers under test: started on loopback with a fresh data directory,
// measured through /proc, stopped with SIGTERM (SIGKILL if they linger).
// Each one's pid is written to <dir>/<name>.pid while it runs, so
// scripts/bench's trap can kill it even if this process dies first; the
// kernel also kills it when this process exits (Pdeathsig).

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is one running server process.
type server struct {
	name    string
	cmd     *exec.Cmd
	dataDir string
	pidFile string
	exited  chan struct{}
	// grpcAddr and httpAddr are crdstore's; etcd's client URL is in grpcAddr.
	grpcAddr, httpAddr string
}

var (
	runningMu sync.Mutex
	running   = map[*server]bool{}
)

// stopAll stops every server still running (on the way out).
func stopAll() {
	runningMu.Lock()
	all := make([]*server, 0, len(running))
	for s := range running {
		all = append(all, s)
	}
	runningMu.Unlock()
	for _, s := range all {
		s.stop()
	}
}

func start(name, dir, dataDir string, bin string, args ...string) (*server, startup, error) {
	cmd := exec.Command(bin, args...)
	if os.Getenv("RUST_LOG") == "" {
		// crdstore logs at info by default; the bench measures the store.
		cmd.Env = append(os.Environ(), "RUST_LOG=warn")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	logFile, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, startup{}, err
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, startup{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, startup{}, fmt.Errorf("starting %s: %w", bin, err)
	}
	logFile.Close()
	s := &server{name: name, cmd: cmd, dataDir: dataDir, pidFile: filepath.Join(dir, name+".pid"), exited: make(chan struct{})}
	_ = os.WriteFile(s.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
	runningMu.Lock()
	running[s] = true
	runningMu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	return s, startup{stdout: bufio.NewReader(stdout), log: filepath.Join(dir, name+".log")}, nil
}

// startup is what a starting server says.
type startup struct {
	stdout *bufio.Reader
	log    string
}

func (i startup) tail() string {
	b, _ := os.ReadFile(i.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}

// startCrdstore runs `crdstore serve` on loopback ports it picks itself.
func startCrdstore(c *config, name, dataDir string) (*server, error) {
	s, out, err := start(name, c.workDir, dataDir, c.crdstoreBin, "serve",
		"--data-dir", dataDir, "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0",
		"--max-watches", strconv.Itoa(2*c.watchers+1024))
	if err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := out.stdout.ReadString('\n')
		lines <- line
		_, _ = out.stdout.WriteTo(discard{})
	}()
	select {
	case line := <-lines:
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "grpc="); ok {
				s.grpcAddr = v
			}
			if v, ok := strings.CutPrefix(f, "http="); ok {
				s.httpAddr = v
			}
		}
		if s.grpcAddr == "" || s.httpAddr == "" {
			s.stop()
			return nil, fmt.Errorf("crdstore did not start: %q\n%s", line, out.tail())
		}
		return s, nil
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("crdstore did not say where it listens in 60 s\n%s", out.tail())
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// freePort is a loopback port free a moment ago (etcd takes fixed ports).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startEtcd runs a one-member etcd on loopback; its client URL is in grpcAddr.
func startEtcd(c *config, name, dataDir string) (*server, error) {
	client, err := freePort()
	if err != nil {
		return nil, err
	}
	peer, err := freePort()
	if err != nil {
		return nil, err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	s, out, err := start(name, c.workDir, dataDir, c.etcdBin,
		"--name", "bench", "--data-dir", dataDir,
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "bench="+peerURL, "--log-level", "warn",
		// Room for -scale: 1 M objects of 1 KB with their revisions.
		"--quota-backend-bytes", strconv.FormatInt(8<<30, 10))
	if err != nil {
		return nil, err
	}
	go func() { _, _ = out.stdout.WriteTo(discard{}) }()
	s.grpcAddr = clientURL
	_ = out
	return s, nil
}

// stop ends the server: SIGTERM, then SIGKILL after 60 s.
func (s *server) stop() {
	runningMu.Lock()
	was := running[s]
	delete(running, s)
	runningMu.Unlock()
	if !was {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	_ = os.Remove(s.pidFile)
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// rss is the server's resident set (VmRSS) in bytes.
func (s *server) rss() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/<pid>/status")
}

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100
// on every architecture Linux runs Go on).
const clockTick = 10 * time.Millisecond

// ownCPU is the load generator's own CPU time so far, user and system.
func ownCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// cpuMark is the CPU the server and the load generator had spent at a
// moment.
type cpuMark struct{ server, own time.Duration }

// markCPU reads both now.
func markCPU(srv *server) (cpuMark, error) {
	server, err := srv.cpu()
	if err != nil {
		return cpuMark{}, err
	}
	own, err := ownCPU()
	return cpuMark{server, own}, err
}

// showPer shows, under serverKey and ownKey, the CPU each side has spent
// since m per one of n operations, in microseconds (nothing when n is 0).
func (m cpuMark) showPer(srv *server, n int64, show func(string, float64), serverKey, ownKey string) error {
	now, err := markCPU(srv)
	if err != nil || n <= 0 {
		return err
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) / float64(n) }
	show(serverKey, us(now.server-m.server))
	show(ownKey, us(now.own-m.own))
	return nil
}

// cpu is the server's CPU time so far, user and system (utime + stime).
func (s *server) cpu() (time.Duration, error) { return pidCPU(s.pid()) }

// pidCPU is a process's CPU time so far, user and system.
func pidCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields
	// count from after the last ')'. utime and stime are fields 14 and 15.
	rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, errors.New("short /proc/<pid>/stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * clockTick, nil
}
