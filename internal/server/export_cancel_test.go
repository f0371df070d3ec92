package server

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigPhoto is a 4000x3000 JPEG of seeded noise, made here so the test runs on any
// machine: noise is what a PNG encoder compresses worst, so its encode spans 47
// bands of 64 rows and a cancel has many places to land.
func bigPhoto(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	r := rand.New(rand.NewPCG(33, 30))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// progressSeen is one notifications/progress the client received.
type progressSeen struct {
	done, total float64
	message     string
}

// progressSession connects the SDK's client to s over darkroom's stdio
// transport; every progress notification it receives is sent on the channel
// (which has room for all of an export's).
func progressSession(t *testing.T, s *Server) (*mcp.ClientSession, <-chan progressSeen) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go s.MCP("test").Run(context.Background(), &StdioTransport{In: inR, Out: outW, Server: s, DrainTimeout: hangGuard})
	t.Cleanup(func() { inW.Close(); outR.Close() })
	seen := make(chan progressSeen, 1<<14)
	client := mcp.NewClient(&mcp.Implementation{Name: "cancel", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case seen <- progressSeen{r.Params.Progress, r.Params.Total, r.Params.Message}:
			default:
			}
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, seen
}

// A full-size PNG export of a large photo spends most of its time in the encoder. The encode sends progress (rows written, the message "encode"); a
// cancel that lands during the encode stops it before its last rows: the handler
// returns the cancellation, no reply reaches the client, no file is left, and the
// session serves the next call. The export not cancelled, made first, gives the
// figures the cancelled one is measured against (logged, never asserted).
func TestCancelledPNGEncodeOverStdio(t *testing.T) {
	data := bigPhoto(t)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// The rows rendered are counted first, then those encoded: a progress whose
	// total is over the image's height is the encoder's.
	height := float64(cfg.Height)
	encoding := func(p progressSeen) bool { return p.message == "encode" && p.total > height }
	s := editServer(t)
	addImage(t, s, "big", data)
	applyEntries(t, s, "big", exposure(0.5))
	returned := handlerOutcome(s, "export_final")
	cs, seen := progressSession(t, s)
	exports := filepath.Join(s.Workspace.Root, "exports")
	files := func() []string {
		var found []string
		filepath.WalkDir(exports, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				found = append(found, p)
			}
			return nil
		})
		return found
	}
	export := func(ctx context.Context, format string) error {
		params := &mcp.CallToolParams{Name: "export_final", Arguments: map[string]any{"image_id": "big", "format": format}}
		params.SetProgressToken("export")
		_, err := cs.CallTool(ctx, params)
		return err
	}
	drain := func() {
		for {
			select {
			case <-seen:
			default:
				return
			}
		}
	}

	for _, format := range []string{"png", "tiff"} {
		t.Run(format, func(t *testing.T) {
			// Not cancelled: the encode's progress, and how long it takes.
			drain()
			start := time.Now()
			if err := export(context.Background(), format); err != nil {
				t.Fatalf("export: %v", err)
			}
			full := time.Since(start)
			if err := <-returned; err != nil {
				t.Fatalf("export: %v", err)
			}
			// The encode's progress ends with all its rows (the client may see the
			// notifications after the reply).
			encodes := 0
			for p := (progressSeen{}); !encoding(p) || p.done != p.total; {
				select {
				case p = <-seen:
					if encoding(p) {
						encodes++
					}
				case <-time.After(hangGuard):
					t.Fatalf("no progress of the encode with all its rows (%d of the encode seen)", encodes)
				}
			}
			got := files()
			if len(got) != 1 {
				t.Fatalf("the export wrote %v", got)
			}
			if err := os.Remove(got[0]); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s export not cancelled: %v, %d progress notifications of the encode", format, full, encodes)

			// Cancelled at the encode's first progress.
			drain()
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- export(ctx, format) }()
			var first progressSeen
			for !encoding(first) {
				select {
				case first = <-seen:
				case <-time.After(hangGuard):
					t.Fatal("no progress from the encode")
				}
			}
			cancel()
			cancelled := time.Now()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("the cancelled call returned %v", err)
			}
			select {
			case err := <-returned:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the encode was not stopped by the cancel: the export returned %v", err)
				}
			case <-time.After(hangGuard):
				t.Fatal("the cancelled export never returned")
			}
			stoppedAfter := time.Since(cancelled)
			lastDone := first.done
			for len(seen) > 0 {
				if p := <-seen; encoding(p) {
					lastDone = p.done
				}
			}
			if lastDone >= first.total {
				t.Errorf("the cancelled encode wrote all %v rows", first.total)
			}
			if got := files(); len(got) != 0 {
				t.Errorf("the cancelled export left %v", got)
			}
			t.Logf("%s export cancelled at row %v of %v: the handler returned %v after the cancel (the whole export takes %v)",
				format, first.done, first.total, stoppedAfter, full)

			// The session goes on.
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_state", Arguments: map[string]any{"image_id": "big"}}); err != nil || res.IsError {
				t.Fatalf("get_state after the cancel: %v", err)
			}
		})
	}
}
