// Package simtest runs servelab-sim as a real process for other
// packages' tests, on a port the kernel picks when the simulator binds.
// A port chosen by the test and handed over is not safe: another
// package's test may be handed the same port before either simulator
// binds, and the loser's health check then reaches the winner (a CI run
// sent its requests to another test's simulator and got "model does
// not exist").
package simtest

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// announced is the simulator's start-up line on stderr, naming where it
// listens.
var announced = regexp.MustCompile(` on http://(127\.0\.0\.1:[0-9]+) `)

// Start runs bin (a built servelab-sim) with args and --port 0, and env
// added to this process's environment, and returns its URL and process
// once it answers /health; it is killed when t ends.
func Start(t testing.TB, bin string, env []string, args ...string) (url string, p *os.Process) {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--port", "0")...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := announced.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		close(found)
		io.Copy(io.Discard, stderr) // a full pipe would stop the simulator
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			t.Fatalf("servelab-sim %v exited without saying where it listens", args)
		}
		url = "http://" + addr
	case <-time.After(30 * time.Second):
		t.Fatalf("servelab-sim %v did not bind within 30 s", args)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if r, err := http.Get(url + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return url, cmd.Process
			}
		}
	}
	t.Fatalf("servelab-sim %v at %s never became healthy", args, url)
	return "", nil
}
