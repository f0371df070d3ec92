package server

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The kernel's socket table names the user of each end of a loopback connection:
// for a connection this process opened, PeerUID finds this process's uid, over
// IPv4 and (where the machine has it) IPv6.
func TestPeerUID(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v (no such loopback here)", addr, err)
			continue
		}
		defer ln.Close()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		uid, err := PeerUID(s.LocalAddr().(*net.TCPAddr), s.RemoteAddr().(*net.TCPAddr))
		if err != nil || uid != os.Getuid() {
			t.Errorf("%s: PeerUID = %d, %v; want %d", addr, uid, err, os.Getuid())
		}
	}
}

// The lines of /proc/net/tcp and tcp6 as the kernel writes them (a little-endian
// machine): 127.0.0.1:8080 and ::1 port 443, with their owners' uids.
func TestFindSocketUID(t *testing.T) {
	const tcp = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  65534        0 2 1 0000000000000000 20 4 30 10 -1
`
	const tcp6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:D431 00000000000000000000000001000000:01BB 01 00000000:00000000 00:00000000 00000000  1001        0 3 1 0000000000000000 20 4 30 10 -1
`
	v4 := func(port int) *net.TCPAddr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port} }
	v6 := func(port int) *net.TCPAddr { return &net.TCPAddr{IP: net.IPv6loopback, Port: port} }
	for _, tc := range []struct {
		table    string
		from, to *net.TCPAddr
		uid      int
		found    bool
	}{
		{tcp, v4(50000), v4(8080), 65534, true},
		{tcp, v4(8080), v4(50000), 0, false}, // the server's own end is not the peer
		{tcp6, v6(54321), v6(443), 1001, true},
		{tcp6, v6(54321), v6(444), 0, false},
	} {
		uid, found, err := findSocketUID(strings.NewReader(tc.table), tc.from, tc.to)
		if err != nil || uid != tc.uid || found != tc.found {
			t.Errorf("%s -> %s: %d %v %v, want %d %v", tc.from, tc.to, uid, found, err, tc.uid, tc.found)
		}
	}
}

// Without authentication, a loopback request of another OS user is refused with 403
// naming why, and the server's own user is served. Switching user needs root; the
// other user's request is sent with curl.
func TestHTTPOtherLocalUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to send a request as another user")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("curl is needed in CI")
		}
		t.Skip("needs curl")
	}
	endpoint := newLocalHTTP(t, func(o *HTTPOptions) { o.LocalUserOnly = true })
	run := func(uid uint32) (string, string) {
		cmd := exec.Command(curl, "-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST",
			"-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream",
			"--data", initializeBody(0), endpoint)
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("curl as %d: %v\n%s", uid, err, out)
		}
		i := strings.LastIndex(string(out), "\n")
		return string(out[i+1:]), string(out[:max(i, 0)])
	}
	if code, body := run(65534); code != "403" || !strings.Contains(body, "serves only its own OS user") {
		t.Errorf("another user: %s %.200s, want 403", code, body)
	}
	if code, body := run(0); code != "200" || !strings.Contains(body, "serverInfo") {
		t.Errorf("the server's own user: %s %.200s", code, body)
	}
}
