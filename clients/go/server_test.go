package crdstore_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// server is a real crdstore: the binary cargo built, on free loopback
// ports, with a temporary data directory; restart keeps ports and data.
type server struct {
	t       *testing.T
	dataDir string
	grpc    string
	http    string
	flags   []string
	cmd     *exec.Cmd
}

// shortHistory keeps history for one revision and compacts every second,
// so a watch from an old revision finds it expired.
var shortHistory = []string{"--history-seconds", "0", "--history-revisions", "1", "--compaction-seconds", "1"}

func binary() string {
	if bin := os.Getenv("CRDSTORE_BIN"); bin != "" {
		return bin
	}
	abs, _ := filepath.Abs("../../target/debug/crdstore")
	return abs
}

func startServer(t *testing.T, flags ...string) *server {
	s := &server{t: t, dataDir: t.TempDir(), grpc: "127.0.0.1:0", http: "127.0.0.1:0", flags: flags}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *server) start() {
	s.t.Helper()
	args := append([]string{"serve", "--data-dir", s.dataDir, "--grpc-addr", s.grpc, "--http-addr", s.http}, s.flags...)
	s.cmd = exec.Command(binary(), args...)
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", binary(), err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		line := lines.Text()
		if !strings.HasPrefix(line, "crdstore listening") {
			continue
		}
		for _, field := range strings.Fields(line)[2:] {
			k, v, _ := strings.Cut(field, "=")
			switch k {
			case "grpc":
				s.grpc = v
			case "http":
				s.http = v
			}
		}
		go func() {
			for lines.Scan() {
			}
		}()
		return
	}
	s.t.Fatal(fmt.Errorf("crdstore exited before listening: %v", s.cmd.Wait()))
}

func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(os.Interrupt)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func (s *server) restart() {
	s.stop()
	s.start()
}
