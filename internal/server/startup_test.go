package server

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack/packtest"
)

// snapshotOf is the snapshot the cache would give for c: what a start-up reads
// before CUE has loaded anything.
func snapshotOf(t *testing.T, c *contract.Contract) *contract.Contract {
	t.Helper()
	cache := &contract.Cache{Dir: t.TempDir()}
	c.KeepSnapshot(cache)
	snap, ok := contract.Snapshot(os.DirFS("../.."), cache)
	if !ok {
		t.Fatal("no snapshot after KeepSnapshot")
	}
	return snap
}

// deferredServer is a server built from snap whose load, when the server starts
// it, is reported on started; the test then calls Ready.
func deferredServer(t *testing.T, snap *contract.Contract) (*Server, chan struct{}) {
	t.Helper()
	s, err := New(snap, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	s.Defer(func() { close(started) })
	return s, started
}

const (
	listLine = `{"jsonrpc":"2.0","id":"list","method":"tools/list"}`
	// A call CUE refuses, with CUE's message: a validator that is not CUE, or no
	// validator at all, answers it otherwise.
	badCallLine = `{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"list_vocabulary","arguments":{"layer":"L9"}}}`
)

// A server started from the cache's snapshot answers initialize and tools/list
// with the bytes a server that loaded everything first answers, and holds a tool
// call until it is ready: the call is validated by the loaded contract's CUE.
func TestDeferredServerAnswersAsLoadedOne(t *testing.T) {
	c, v := packtest.Builtin(t)
	full, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := startWire(t, full.MCP(c.Version), nil)
	w.send(initLine)
	wantInit := w.reply(`"init"`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(listLine)
	wantList := w.reply(`"list"`)
	w.send(badCallLine)
	wantCall := w.reply(`"call"`)
	if !strings.Contains(string(wantCall), `layer: \"L9\" is not one of`) {
		t.Fatalf("the loaded server does not refuse the call as the test expects:\n%s", wantCall)
	}
	w.end()

	s, started := deferredServer(t, snapshotOf(t, c))
	w = startWire(t, s.MCP(c.Version), nil)
	w.send(initLine)
	if got := w.reply(`"init"`); !bytes.Equal(got, wantInit) {
		t.Errorf("initialize from the snapshot:\n%s\nloaded:\n%s", got, wantInit)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// The call comes before tools/list: it alone makes the server start loading,
	// and it must wait for the load, whose Ready comes after.
	w.send(badCallLine)
	await(t, started, "the load, started by a held call")
	w.send(listLine)
	if got := w.reply(`"list"`); !bytes.Equal(got, wantList) {
		t.Errorf("tools/list from the snapshot differs from the loaded server's")
	}
	if err := s.Ready(c, v); err != nil {
		t.Fatal(err)
	}
	if got := w.reply(`"call"`); !bytes.Equal(got, wantCall) {
		t.Errorf("held call:\n%s\nloaded server:\n%s", got, wantCall)
	}
	w.end()
}

// A snapshot that does not show what the loaded contract shows (a cache written
// by hand, say) gives way to it: once ready, the server lists the loaded tools, as
// a server that loaded everything first does, and tells the client the list
// changed.
func TestDeferredServerReplacesStaleSnapshot(t *testing.T) {
	c, v := packtest.Builtin(t)
	full, err := New(c, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := startWire(t, full.MCP(c.Version), nil)
	initialize(w)
	w.send(listLine)
	wantList := w.reply(`"list"`)
	w.end()

	snap := snapshotOf(t, c)
	snap.Tools[0].Description = "a description the contract does not have"
	if snap.SameSurface(c) {
		t.Fatal("SameSurface misses a changed description")
	}
	s, started := deferredServer(t, snap)
	w = startWire(t, s.MCP(c.Version), nil)
	initialize(w)
	w.send(listLine)
	if got := w.reply(`"list"`); bytes.Equal(got, wantList) || !strings.Contains(string(got), "a description the contract does not have") {
		t.Fatal("tools/list before the load is not the snapshot's")
	}
	await(t, started, "the load, started by tools/list")
	if err := s.Ready(c, v); err != nil {
		t.Fatal(err)
	}
	w.send(strings.Replace(listLine, `"list"`, `"list2"`, 1))
	got := w.reply(`"list2"`)
	if want := bytes.Replace(wantList, []byte(`"list"`), []byte(`"list2"`), 1); !bytes.Equal(got, want) {
		t.Errorf("tools/list after the load is not the loaded server's")
	}
	// The SDK sends the notification a moment after the change, so it may come
	// before the reply or after it.
	isChanged := func(line []byte) bool { return strings.Contains(string(line), `"notifications/tools/list_changed"`) }
	changed := false
	for _, line := range w.seen {
		changed = changed || isChanged(line)
	}
	for !changed {
		changed = isChanged(w.next())
	}
	w.end()
}

// An over-long tools/call as the first call reaches no middleware: the transport
// answers it with the tool's error result, which needs the loaded contract, so it
// starts the load itself instead of waiting for something else to.
func TestDeferredServerOverlongFirstCall(t *testing.T) {
	c, v := packtest.Builtin(t)
	s, err := New(snapshotOf(t, c), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Defer(func() {
		go func() {
			if err := s.Ready(c, v); err != nil {
				t.Error(err)
			}
		}()
	})
	w := startWire(t, s.MCP(c.Version), func(tr *StdioTransport) {
		tr.Server = s
		tr.lineLimit = 1 << 20
	})
	initialize(w)
	w.sendFrom(longCall("1", "ingest", 2<<20, false))
	r := parseReply(t, w.reply("1"))
	if r.Error != nil || !bytes.Contains(r.Result, []byte("limit_exceeded")) {
		t.Errorf("over-long ingest: %s", w.seen)
	}
	w.end()
}
