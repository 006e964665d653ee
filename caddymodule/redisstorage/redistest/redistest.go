// Package redistest runs a real redis-server for tests: on a free
// 127.0.0.1 port, persisting to an append-only file in a temporary
// directory, so that a test can stop and restart it and find its data.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/redis/go-redis/v9"
)

// startTimeout bounds how long redis-server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is one redis-server process a test started.
type Server struct {
	// Addr is its host:port.
	Addr string
	// TLS, for a server StartTLS started, are its certificates; nil
	// otherwise.
	TLS  *TLSFiles
	bin  string
	dir  string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs redis-server, or skips the test if it is not installed. The
// server is stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, nil)
}

func start(t testing.TB, files *TLSFiles) *Server {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (Debian: apt-get install redis-server; e2e/setup.sh installs it)")
	}
	dir := t.TempDir()
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(porttest.FreePort(t))), TLS: files, bin: bin, dir: dir, log: filepath.Join(dir, "redis.log")}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd != nil {
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return s
}

// start runs the process and waits until it answers PING.
func (s *Server) start() error {
	_, port, _ := net.SplitHostPort(s.Addr)
	args := []string{"--port", port, "--bind", "127.0.0.1", "--dir", s.dir,
		"--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--logfile", s.log, "--daemonize", "no"}
	if s.TLS != nil {
		args = append(args, s.TLS.serverArgs(port)...)
	}
	s.cmd = exec.Command(s.bin, args...)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(s.cmd, s.done)
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1, TLSConfig: s.tlsConfig()})
	defer c.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(s.log)
			return fmt.Errorf("redis-server exited: %s", b)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on %s does not answer after %v: %w", s.Addr, startTimeout, err)
		}
	}
}

// Stop shuts the server down (SIGTERM: it writes its data and exits) and
// waits for it to exit.
func (s *Server) Stop() error {
	if s.cmd == nil {
		return nil
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(startTimeout):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("redis-server did not exit within %v of SIGTERM", startTimeout)
	}
	s.cmd = nil
	return nil
}

// Restart starts the server again on the same port and data directory
// after Stop.
func (s *Server) Restart() error {
	if s.cmd != nil {
		return fmt.Errorf("redis-server on %s is running", s.Addr)
	}
	return s.start()
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: 1, DialerRetries: 2, TLSConfig: s.tlsConfig()})
	t.Cleanup(func() { c.Close() })
	return c
}
