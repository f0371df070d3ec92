package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport speaks newline-delimited JSON-RPC over a reader and a writer, like
// the SDK's mcp.StdioTransport, with one difference that matters to one-shot clients:
// when the input ends, the connection stays open until every request it read has
// been answered. The SDK's transport marks the connection closed at input EOF and
// then drops replies that handlers are still computing (go-sdk issue 1061).
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
	// DrainTimeout bounds how long replies are awaited after the input ends.
	DrainTimeout time.Duration
}

// maxLineBytes bounds one inbound message.
const maxLineBytes = 16 << 20

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	drain := t.DrainTimeout
	if drain <= 0 {
		drain = 5 * time.Minute
	}
	c := &stdioConn{
		out:     t.Out,
		lines:   make(chan lineOrErr),
		closed:  make(chan struct{}),
		pending: map[any]int{},
		drained: make(chan struct{}, 1),
		drain:   drain,
	}
	go c.readLoop(t.In)
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error
}

type stdioConn struct {
	out   io.Writer
	wmu   sync.Mutex
	lines chan lineOrErr
	drain time.Duration

	closeOnce sync.Once
	closed    chan struct{}

	mu      sync.Mutex
	pending map[any]int // request id -> requests read and not yet answered
	drained chan struct{}
}

func (c *stdioConn) readLoop(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r)
		if len(bytes.TrimSpace(line)) > 0 || err != nil {
			select {
			case c.lines <- lineOrErr{line, err}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line, refusing lines over maxLineBytes (the rest of such a line
// is skipped so the next message can still be read).
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxLineBytes {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong && err == nil {
			return nil, errLineTooLong
		}
		return buf, err
	}
}

var errLineTooLong = fmt.Errorf("message longer than %d bytes", maxLineBytes)

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var le lineOrErr
		select {
		case le = <-c.lines:
		case <-c.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if errors.Is(le.err, errLineTooLong) {
			c.writeParseError(le.err)
			continue
		}
		if len(bytes.TrimSpace(le.line)) > 0 {
			msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(le.line))
			if err != nil {
				// A malformed line gets a JSON-RPC parse error, and the session goes on.
				c.writeParseError(err)
			} else {
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					c.mu.Lock()
					c.pending[req.ID.Raw()]++
					c.mu.Unlock()
				}
				if le.err == nil {
					return msg, nil
				}
				// The last line had no newline: hand it over; EOF comes next Read.
				go func() {
					select {
					case c.lines <- lineOrErr{err: le.err}:
					case <-c.closed:
					}
				}()
				return msg, nil
			}
		}
		if le.err != nil {
			c.awaitReplies(ctx)
			if errors.Is(le.err, io.EOF) {
				return nil, io.EOF
			}
			return nil, le.err
		}
	}
}

// awaitReplies blocks until every request read so far has its reply written.
func (c *stdioConn) awaitReplies(ctx context.Context) {
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.drained:
		case <-timer.C:
			return
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_, err = c.out.Write(append(b, '\n'))
	c.wmu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		id := resp.ID.Raw()
		if c.pending[id] > 1 {
			c.pending[id]--
		} else {
			delete(c.pending, id)
		}
		c.mu.Unlock()
		select {
		case c.drained <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *stdioConn) writeParseError(err error) {
	resp := &jsonrpc.Response{Error: &jsonrpc.Error{Code: -32700, Message: "parse error: " + err.Error()}}
	b, encErr := jsonrpc.EncodeMessage(resp)
	if encErr != nil {
		return
	}
	c.wmu.Lock()
	c.out.Write(append(b, '\n'))
	c.wmu.Unlock()
}

// Close implements mcp.Connection.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }
