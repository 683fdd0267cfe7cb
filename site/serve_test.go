package site

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckServeAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:0": true, "localhost:80": true,
		"0.0.0.0:8080": false, ":8080": false, "example.org:80": false, "10.0.0.1:80": false, "127.0.0.1": false,
	} {
		if err := CheckServeAddr(addr); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
}

// The preview serves the folder's files on the loopback address it
// announces (the server runs until the test process ends).
func TestServe(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>site</p>"), 0o644)
	if err := Serve(dir, "0.0.0.0:0", func(string) {}); err == nil {
		t.Fatal("served on every interface")
	}
	addrs := make(chan string, 1)
	go Serve(dir, "127.0.0.1:0", func(a string) { addrs <- a })
	resp, err := http.Get("http://" + <-addrs + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "<p>site</p>" {
		t.Errorf("served %q", b)
	}
}
