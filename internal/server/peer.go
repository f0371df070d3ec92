package server

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

// localUserOnly refuses with 403 a request whose connection another OS user opened:
// a server without authentication serves the local user alone, as stdio does, and a
// loopback port is open to every account of the machine. The peer is looked up per
// request (PeerUID); a peer that cannot be identified is refused too.
func localUserOnly(next http.Handler) http.Handler {
	me := os.Getuid()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
		lt, ok := local.(*net.TCPAddr)
		if err != nil || !ok {
			http.Error(w, "Forbidden: this server serves only its own OS user, and cannot tell who opened this connection", http.StatusForbidden)
			return
		}
		uid, err := PeerUID(lt, remote)
		switch {
		case err != nil:
			http.Error(w, "Forbidden: this server serves only its own OS user, and cannot tell who opened this connection: "+err.Error(), http.StatusForbidden)
		case uid != me:
			http.Error(w, fmt.Sprintf("Forbidden: this server serves only its own OS user (uid %d); this connection is uid %d's: run your own server, or serve with --tokens", me, uid), http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}
