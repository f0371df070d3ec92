package server

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// PeerUIDSupported says whether PeerUID can name the user behind a loopback
// connection on this system.
const PeerUIDSupported = true

// PeerUID returns the uid of the process that opened the TCP connection from remote
// to local (an accepted connection's two ends, seen from the server), read from
// /proc/net/tcp and /proc/net/tcp6: the kernel lists the client's socket there with
// remote as its local address and its owner's uid. Only the connections of the
// server's network namespace are listed, which a loopback connection's client shares.
func PeerUID(local, remote *net.TCPAddr) (int, error) {
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		uid, found, err := findSocketUID(f, remote, local)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		if found {
			return uid, nil
		}
	}
	return 0, fmt.Errorf("no socket from %s to %s in /proc/net/tcp or tcp6", remote, local)
}

// findSocketUID finds, in a /proc/net/tcp listing, the socket whose own address is
// from and whose peer is to, and returns its owner's uid.
func findSocketUID(r io.Reader, from, to *net.TCPAddr) (uid int, found bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			continue
		}
		la, err := parseProcAddr(f[1])
		if err != nil {
			return 0, false, err
		}
		ra, err := parseProcAddr(f[2])
		if err != nil {
			return 0, false, err
		}
		if !sameAddr(la, from) || !sameAddr(ra, to) {
			continue
		}
		uid, err := strconv.Atoi(f[7])
		if err != nil {
			return 0, false, fmt.Errorf("uid %q: %w", f[7], err)
		}
		return uid, true, nil
	}
	return 0, false, sc.Err()
}

func sameAddr(a, b *net.TCPAddr) bool {
	return a.Port == b.Port && a.IP.Equal(b.IP)
}

// parseProcAddr reads an address of /proc/net/tcp: the IP as 32-bit words in the
// kernel's byte order, in hex, a colon, and the port in hex.
func parseProcAddr(s string) (*net.TCPAddr, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok || (len(ipHex) != 8 && len(ipHex) != 32) {
		return nil, fmt.Errorf("address %q is not IP:port in hex", s)
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", s, err)
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", s, err)
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, nil
}
