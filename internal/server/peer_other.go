//go:build !linux

package server

import (
	"errors"
	"net"
)

// PeerUIDSupported says whether PeerUID can name the user behind a loopback
// connection on this system: only on Linux (/proc/net/tcp).
const PeerUIDSupported = false

// PeerUID is not available on this system.
func PeerUID(local, remote *net.TCPAddr) (int, error) {
	return 0, errors.New("the user behind a TCP connection is known only on Linux")
}
