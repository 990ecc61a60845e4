// Command conformance runs the upstream apiextensions-apiserver integration
// tests (k8s.io/apiextensions-apiserver/test/integration, compiled by
// scripts/conformance against testdata/fixtures/server.go) against crdstore:
// each test gets its own crdstore, started on loopback with a fresh data
// directory and named to the test by a kubeconfig, and stopped after it.
//
// Tests in the skip list cannot run against an external server and are not
// run; tests in the known-failures list are run, and their failures are
// expected until the issue named beside each is closed. The run fails when a
// test outside both lists fails, or a list names a test the suite does not
// have; a known failure that passes is reported so the list can shrink.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

type outcome int

const (
	passed outcome = iota
	failed
	skipped
)

type result struct {
	name     string
	outcome  outcome
	duration time.Duration
	log      string
}

func main() {
	crdstore := flag.String("crdstore", "target/debug/crdstore", "the crdstore binary")
	tests := flag.String("tests", "", "the compiled integration test binary")
	pkgDir := flag.String("pkg-dir", "", "the integration package's directory (tests run in it, as go test runs them)")
	skipFile := flag.String("skip", "tools/conformance/skip.txt", "tests that cannot run against an external server")
	knownFile := flag.String("known", "tools/conformance/known-failures.txt", "tests expected to fail, with their owning issue")
	dir := flag.String("dir", "", "a scratch directory for data directories, kubeconfigs and logs")
	run := flag.String("run", "", "run only the tests whose names match this regular expression")
	parallel := flag.Int("parallel", 2, "tests run at once, each against its own crdstore")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long one test may take (the longest passing test takes about 30s)")
	verbose := flag.Bool("v", false, "print every test's log")
	flag.Parse()
	if *tests == "" || *dir == "" || *pkgDir == "" {
		fmt.Fprintln(os.Stderr, "conformance: -tests, -pkg-dir and -dir are required")
		os.Exit(2)
	}
	started := time.Now()
	code, err := conform(*crdstore, *tests, *pkgDir, *skipFile, *knownFile, *dir, *run, *parallel, *timeout, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	fmt.Printf("conformance: run time %s\n", time.Since(started).Round(time.Second))
	os.Exit(code)
}

func conform(crdstore, tests, pkgDir, skipFile, knownFile, dir, run string, parallel int, timeout time.Duration, verbose bool) (int, error) {
	all, err := listTests(tests, pkgDir)
	if err != nil {
		return 0, err
	}
	skip, err := readList(skipFile, all)
	if err != nil {
		return 0, err
	}
	known, err := readList(knownFile, all)
	if err != nil {
		return 0, err
	}
	for name := range known {
		if _, ok := skip[name]; ok {
			return 0, fmt.Errorf("%s is in both %s and %s", name, skipFile, knownFile)
		}
	}
	var filter *regexp.Regexp
	if run != "" {
		if filter, err = regexp.Compile(run); err != nil {
			return 0, err
		}
	}
	var todo []string
	skippedByList := 0
	for _, name := range all {
		if filter != nil && !filter.MatchString(name) {
			continue
		}
		if _, ok := skip[name]; ok {
			skippedByList++
			continue
		}
		todo = append(todo, name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}

	results := make([]result, len(todo))
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(parallel, 1))
	for i, name := range todo {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			results[i] = runOne(crdstore, tests, pkgDir, dir, name, timeout)
			r := results[i]
			fmt.Printf("%-4s %s (%s)\n", [...]string{"ok", "FAIL", "skip"}[r.outcome], name, r.duration.Round(100*time.Millisecond))
		}()
	}
	wg.Wait()

	var nPassed, nFailed, nKnown, nSkipped = 0, 0, 0, skippedByList
	var unexpected, fixed []string
	for _, r := range results {
		_, isKnown := known[r.name]
		switch r.outcome {
		case passed:
			nPassed++
			if isKnown {
				fixed = append(fixed, r.name)
			}
		case skipped:
			nSkipped++
		case failed:
			nFailed++
			if isKnown {
				nKnown++
			} else {
				unexpected = append(unexpected, r.name)
			}
		}
		if verbose || (r.outcome == failed && !isKnown) {
			fmt.Printf("\n=== log of %s\n%s\n", r.name, r.log)
		}
	}
	sort.Strings(fixed)
	for _, name := range fixed {
		fmt.Printf("conformance: notice: %s passes now; remove it from %s (%s)\n", name, knownFile, known[name])
	}
	for _, name := range unexpected {
		fmt.Printf("conformance: %s failed and is not a known failure\n", name)
	}
	fmt.Printf("conformance: %d passed, %d failed (%d known), %d skipped\n", nPassed, nFailed, nKnown, nSkipped)
	if len(unexpected) > 0 {
		return 1, nil
	}
	return 0, nil
}

// listTests lists the top-level tests of the binary.
func listTests(tests, pkgDir string) ([]string, error) {
	cmd := exec.Command(tests, "-test.list", ".")
	cmd.Dir = pkgDir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the tests of %s: %w", tests, err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Test") {
			names = append(names, strings.TrimSpace(line))
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s lists no tests", tests)
	}
	return names, nil
}

// readList reads a list of tests: one per line, the test's name and then
// why it is listed; blank lines and lines starting with # are comments.
// Every test named must be one of the suite's, and must say why.
func readList(path string, all []string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	exists := map[string]bool{}
	for _, name := range all {
		exists[name] = true
	}
	list := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		switch {
		case !exists[name]:
			return nil, fmt.Errorf("%s:%d: the suite has no test %s", path, i+1, name)
		case reason == "":
			return nil, fmt.Errorf("%s:%d: %s is listed without a reason", path, i+1, name)
		case list[name] != "":
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, i+1, name)
		}
		list[name] = reason
	}
	return list, nil
}

// runOne runs one test against a crdstore of its own.
func runOne(crdstore, tests, pkgDir, dir, name string, timeout time.Duration) (r result) {
	start := time.Now()
	r = result{name: name, outcome: failed}
	work := filepath.Join(dir, name)
	os.RemoveAll(work)
	defer func() { r.duration = time.Since(start) }()
	if err := os.MkdirAll(work, 0o755); err != nil {
		r.log = err.Error()
		return r
	}
	server, addr, err := startServer(crdstore, work)
	if err != nil {
		r.log = err.Error()
		return r
	}
	defer server.stop()
	kubeconfig := filepath.Join(work, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(kubeconfigTemplate, addr)), 0o600); err != nil {
		r.log = err.Error()
		return r
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tests, "-test.run", "^"+name+"$", "-test.v", "-test.timeout", timeout.String())
	cmd.Dir = pkgDir
	cmd.Env = append(os.Environ(), "CONFORMANCE_KUBECONFIG="+kubeconfig)
	out, runErr := cmd.CombinedOutput()
	r.log = string(out) + server.logTail()
	os.WriteFile(filepath.Join(dir, name+".log"), []byte(r.log), 0o644)
	switch {
	case runErr == nil && regexp.MustCompile(`(?m)^--- SKIP: `+name+` `).MatchString(string(out)):
		r.outcome = skipped
	case runErr == nil && regexp.MustCompile(`(?m)^--- PASS: `+name+` `).MatchString(string(out)):
		r.outcome = passed
	case runErr != nil:
		r.log += "\n" + runErr.Error()
	}
	if alive := server.alive(); !alive && r.outcome == passed {
		// The server must still serve after the test: a crash fails it.
		r.outcome = failed
		r.log += "\ncrdstore exited during the test"
	}
	if r.outcome != failed {
		os.RemoveAll(work)
	}
	return r
}

const kubeconfigTemplate = `apiVersion: v1
kind: Config
clusters:
- cluster:
    server: http://%s
  name: crdstore
contexts:
- context:
    cluster: crdstore
    user: conformance
  name: crdstore
current-context: crdstore
users:
- name: conformance
  user: {}
`

type server struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startServer starts crdstore on loopback ports of the system's choosing
// with a fresh data directory under work, and returns its HTTP address.
func startServer(crdstore, work string) (*server, string, error) {
	logPath := filepath.Join(work, "crdstore.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, "", err
	}
	defer logFile.Close()
	cmd := exec.Command(crdstore, "serve",
		"--data-dir", filepath.Join(work, "data"),
		"--grpc-addr", "127.0.0.1:0",
		"--http-addr", "127.0.0.1:0")
	cmd.Stderr = logFile
	cmd.Env = append(os.Environ(), "RUST_LOG=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	s := &server{cmd: cmd, log: logPath, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if _, after, ok := strings.Cut(lines.Text(), " http="); ok {
				addr <- strings.Fields(after)[0]
			}
		}
		cmd.Wait()
		close(s.done)
	}()
	select {
	case a := <-addr:
		return s, a, nil
	case <-s.done:
		return nil, "", fmt.Errorf("crdstore exited before serving:\n%s", s.logTail())
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, "", fmt.Errorf("crdstore did not start within 60s:\n%s", s.logTail())
	}
}

func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// stop ends the server with SIGTERM, and SIGKILL if it lingers.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *server) logTail() string {
	data, _ := os.ReadFile(s.log)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "\n--- crdstore log (last lines)\n" + strings.Join(lines, "\n")
}
