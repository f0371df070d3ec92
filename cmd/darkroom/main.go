// Command darkroom is an MCP server that lets AI agents edit photographs through a
// declared vocabulary of operations, and the CLI verbs that mirror its tools.
//
//	darkroom serve [--workspace DIR] [--allow-root DIR]... [--vocab DIR]... [--contracts DIR] [--decode-budget MiB] [--raw-decoder PATH|none]
//	                                    speak MCP over stdio
//	darkroom demo                       an editing session through an in-process MCP client
//	darkroom vocab list [--layer L] [--json]
//	darkroom vocab vet FILE...          check packs against #Manifest (as cue vet does)
//	darkroom contract export            tool specs and JSON Schemas as JSON
//	darkroom render IN OUT [flags]      stateless render with catalog operations
//	darkroom contact-sheet IN OUT       every operation at a few values, on one sheet
//	darkroom docs                       regenerate the reference pages
//	darkroom TOOL-NAME [ARGS] [--json]  call one tool (apply-primitive, snapshot, export...)
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
	"github.com/darkroom-mcp/darkroom/internal/engine"
	"github.com/darkroom-mcp/darkroom/internal/server"
	"github.com/darkroom-mcp/darkroom/internal/version"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
	"github.com/darkroom-mcp/darkroom/internal/workspace"
)

func main() {
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(m.Run(context.Background(), os.Args[1:]))
}

// Main is one run of the program; tests build it with their own streams.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// ServerOptions configure every server Run builds (tests set hooks here).
	ServerOptions []server.Option

	contract *contract.Contract
	// builtinContract is set when contract is the embedded one (not --contracts):
	// only then is a start-up's verdict kept for the next (see startup.go).
	builtinContract bool
	// snap is the cached snapshot of the embedded contract, once snapRead.
	snap     *contract.Contract
	snapRead bool
	// deferred is set when serve answered from the snapshot while it loaded.
	deferred bool
	// setupDone, when set, ends a CLI call's set-up (see toolCmd).
	setupDone func()
	// usageShown is set when a command printed its usage: -h, or flags that do not
	// parse, which exit 2 like any usage error.
	usageShown bool
	// flagOut holds what the flag sets printed (usage, a flag's error) until the
	// command ends: on -h it goes to stdout and the exit is 0, on a mistake to stderr.
	flagOut bytes.Buffer
}

const usage = `usage: darkroom <command> [arguments]

commands:
  serve          speak MCP over stdio (what an MCP client starts), or over HTTP (--http)
  token          add, remove or list the bearer tokens of serve --http
  demo           an editing session on the sample photo through an MCP client of the real server
  vocab list     list the vocabulary entries
  vocab vet      check vocabulary packs against the #Manifest schema
  contract export  print every tool's spec and JSON Schemas as JSON
  render         render a photo with catalog operations (stateless)
  contact-sheet  render every catalog operation at a few values on one sheet
  docs           regenerate docs/*.md and the README's tool table from the contracts
  version        print the version, commit and build date (also --version, -v)
  completion     print a shell completion script: completion bash|zsh|fish

Every tool is a command too, named as the tool in kebab-case, sharing the server's
code path (--workspace DIR, --allow-root DIR, --json):
  ingest PATH [--image-id ID] | --b64-file FILE     get-state IMG   bind-layers IMG
  apply-primitive IMG --entry NAME [--value V | --param NAME=V...] [--mask-spec JSON] [--strength S]
  apply-per-region  apply-spot  wb-from-gray-card  remove-module  reset  propagate-state
  snapshot  checkout  branch  tag  log  diff  preview  compare  export
  read-context  log-vocabulary-gap  propose-taste-update  confirm-taste-update ...
  augment PATH (--prompt TEXT | --preset NAME | --pipeline JSON) [--seed N] [--count N]
  validate-prompt TEXT   list-available-presets   set-default-seed
  augment-dataset --input DIR|URL --output DIR|URL (--prompt|--preset|--pipeline) [--variants N] [--shard I/N|auto]
  augment-dataset merge OUT|URL [MANIFEST...]

Run 'darkroom <command> -h' for a command's flags.
`

// exitUsage is the exit code of a command line that cannot be understood.
const exitUsage = 2

// Run runs one command and returns the process exit code: 0 on success, the
// contract's exit code for a coded failure, 2 for a usage error.
func (m *Main) Run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(m.Stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	if cmd == "help" && len(rest) > 0 {
		// darkroom help serve is darkroom serve -h.
		cmd, rest = rest[0], append(rest[1:], "-h")
	}
	var err error
	if cmd == "augment-dataset" && len(rest) > 0 && rest[0] == "merge" {
		cmd, rest = "augment-dataset merge", rest[1:]
	}
	switch cmd {
	case "augment-dataset merge":
		err = m.datasetMerge(ctx, rest)
	case "serve":
		err = m.serve(ctx, rest)
	case "token":
		err = m.tokenCmd(rest)
	case "demo":
		err = m.demo(ctx, rest)
	case "vocab":
		err = m.vocabCmd(rest)
	case "contract":
		err = m.contractCmd(rest)
	case "render":
		err = m.render(rest)
	case "contact-sheet":
		err = m.contactSheet(rest)
	case "docs":
		err = m.docs(rest)
	case "version", "--version", "-v":
		err = m.versionCmd(rest)
	case "help", "-h", "--help":
		fmt.Fprint(m.Stdout, usage)
		return 0
	case "completion":
		err = m.completionCmd(rest)
	case "__complete":
		err = m.completeCmd(rest)
	default:
		found, terr := m.toolCmd(ctx, cmd, rest)
		if !found && terr == nil {
			fmt.Fprintf(m.Stderr, "darkroom: unknown command %q\n\n%s", cmd, usage)
			return exitUsage
		}
		err = terr
	}
	if errors.Is(err, flag.ErrHelp) {
		// Asked for: the help is the output, and asking succeeded.
		m.Stdout.Write(m.flagOut.Bytes())
		return 0
	}
	m.Stderr.Write(m.flagOut.Bytes())
	return m.exit(err)
}

// helpArg reports whether a command's only argument asks for its help.
func helpArg(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// groupHelp prints a command group's usage as its help: `darkroom token -h`.
func (m *Main) groupHelp(text string) error {
	fmt.Fprintln(&m.flagOut, strings.TrimRight(text, "\n"))
	return flag.ErrHelp
}

// usageError is a command line that cannot be understood.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errReported means the command already printed what went wrong.
type errReported struct{ code int }

func (e errReported) Error() string { return fmt.Sprintf("exit %d", e.code) }

func (m *Main) exit(err error) int {
	if err == nil {
		return 0
	}
	var rep errReported
	if errors.As(err, &rep) {
		return rep.code
	}
	var ue *usageError
	if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(m.Stderr, "darkroom: %s\n", ue.msg)
		}
		return exitUsage
	}
	var de *darkroom.Error
	if m.usageShown && !errors.As(err, &de) {
		return exitUsage // the flag package said what is wrong, above the usage
	}
	fmt.Fprintf(m.Stderr, "darkroom: %s\n", strings.TrimRight(err.Error(), "\n"))
	return m.exitCode(darkroom.Code(err))
}

// exitCode is the contract's exit code for an error code.
func (m *Main) exitCode(code string) int {
	if m.contract != nil {
		if ec, ok := m.contract.ErrorCode(code); ok {
			return ec.ExitCode
		}
	}
	return 1
}

func (m *Main) loadContract() (*contract.Contract, error) {
	if m.contract != nil {
		return m.contract, nil
	}
	c, err := contract.LoadCached(darkroom.Files, contract.UserCache())
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "embedded contracts")
	}
	m.contract, m.builtinContract = c, true
	return c, nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (f *multiFlag) String() string     { return strings.Join(*f, ",") }
func (f *multiFlag) Set(v string) error { *f = append(*f, v); return nil }

func (m *Main) flags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&m.flagOut)
	fs.Usage = func() {
		m.usageShown = true
		fmt.Fprintf(fs.Output(), "usage: darkroom %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// loadVocab loads the built-in packs and the packs of every --vocab directory.
func (m *Main) loadVocab(c *contract.Contract, dirs []string) (*vocab.Vocabulary, error) {
	srcs, err := packSources(dirs)
	if err != nil {
		return nil, err
	}
	return pack.LoadCached(c, srcs, contract.UserCache())
}

// packSources reads the built-in packs and those of every --vocab directory.
func packSources(dirs []string) ([]pack.Source, error) {
	srcs, err := pack.Builtin()
	if err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "built-in vocabulary")
	}
	for _, d := range dirs {
		more, err := pack.Dir(d)
		if err != nil {
			return nil, darkroom.Wrap(darkroom.InvalidInput, err, "--vocab")
		}
		srcs = append(srcs, more...)
	}
	return srcs, nil
}

// newServer loads the contract and the vocabulary and returns the server, with ws
// (nil: none) as its workspace.
func (m *Main) newServer(vocabDirs []string, ws *workspace.Workspace) (*server.Server, error) {
	c, err := m.loadContract()
	if err != nil {
		return nil, err
	}
	srcs, err := packSources(vocabDirs)
	if err != nil {
		return nil, err
	}
	v, err := pack.LoadCached(c, srcs, contract.UserCache())
	if err != nil {
		return nil, err
	}
	s, err := server.New(c, v, m.logger(), m.ServerOptions...)
	if err != nil {
		return nil, err
	}
	s.Workspace = ws
	if m.builtinContract {
		keepStartup(contract.UserCache(), c, srcs)
	}
	return s, nil
}

const serveSynopsis = `serve [--workspace DIR] [--allow-root DIR]... [--vocab DIR]... [--contracts DIR] [--decode-budget MiB]
      [--toolsets GROUP,...] [--read-only] [--raw-decoder PATH|none]
      [--http ADDR [--tokens FILE] [--jwks FILE --issuer ISS [--audience AUD]] [--resource URL] [--time-limit-scale F] [--allow-origin ORIGIN]...]

Speaks MCP over stdio, or over Streamable HTTP with --http. Over HTTP without
--tokens or --jwks only a loopback address is served, to the local OS user alone
(other users' connections are refused, on Linux; elsewhere a token is needed); with them
every request needs a bearer token, each principal works in its own workspace
(<workspace>/workspaces/<name>) within its grants and limits (contracts/grants.cue),
and each call within its tool's time limit.
--toolsets and --read-only narrow the tools offered, so a host loads only the
definitions it wants. Images, their history, previews and exports live under the
workspace (default: $DARKROOM_WORKSPACE, else the per-user data directory).
ingest reads photos only under an --allow-root directory or a root the MCP client
offers (roots/list); with neither, it takes image_b64 only.
--contracts DIR serves a contract module other than the built-in one, with this
binary's handlers: to try a contract change (deprecating or renaming a tool, a new
alias) before building it. A contract whose tools this binary cannot serve is
refused at start-up.
DNG files are read in-process; other camera raw formats (NEF, CR2, CR3, ARW, RAF,
ORF, RW2...) through LibRaw's dcraw_emu, found on PATH or named by --raw-decoder
(none: camera raws other than DNG are unavailable).`

func (m *Main) serve(ctx context.Context, args []string) error {
	fs := m.flags("serve", serveSynopsis)
	var vocabDirs multiFlag
	fs.Var(&vocabDirs, "vocab", "directory of extra vocabulary packs (repeatable)")
	budgetMiB := fs.Int64("decode-budget", engine.DefaultDecodeBudget>>20, "MiB of pixel buffers the calls in flight may hold together (decodes, renders, encodes), each costed from the header before it starts; a call that would pass it waits, one that alone needs more is refused (limit_exceeded)")
	var wf workspaceFlags
	wf.register(fs, "a directory ingest may read photos from (repeatable; the client's roots are added)")
	contractDir := fs.String("contracts", "", "serve the contract module in `DIR` (cue.mod/module.cue, contracts/*.cue) instead of the built-in one")
	var hf httpFlags
	hf.register(fs)
	toolsets := fs.String("toolsets", "", "offer only the tools of these comma-separated `groups` (the contract's: vocabulary, contract, ingest, edit, history, render, context, augment)")
	readOnly := fs.Bool("read-only", false, "offer only the tools the contract annotates readOnly")
	rawDecoder := fs.String("raw-decoder", "", "LibRaw's dcraw_emu, which develops camera raw files other than DNG (default: dcraw_emu on PATH; none: no camera raws but DNG)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	switch *rawDecoder {
	case "":
	case "none":
		engine.SetRawDecoder(engine.RawDecoder{Disabled: true})
	default:
		p, err := exec.LookPath(*rawDecoder)
		if err != nil {
			return usagef("--raw-decoder %s: %v", *rawDecoder, err)
		}
		engine.SetRawDecoder(engine.RawDecoder{Path: p})
	}
	if *contractDir != "" {
		c, err := contract.Load(os.DirFS(*contractDir))
		if err != nil {
			return usagef("--contracts %s: %v", *contractDir, err)
		}
		m.contract = c
	}
	if *budgetMiB <= 0 || *budgetMiB > 1<<30 {
		return usagef("--decode-budget takes a positive number of MiB, got %d", *budgetMiB)
	}
	engine.SetDecodeBudget(*budgetMiB<<20, 0)
	engine.LimitHeap()
	if *toolsets != "" || *readOnly {
		f := server.ToolFilter{ReadOnly: *readOnly}
		if *toolsets != "" {
			f.Groups = strings.Split(*toolsets, ",")
		}
		// The filter reads only what a snapshot holds (the tools' groups and
		// annotations); a stdio server started from one keeps using it.
		c := m.snapshot()
		if c == nil {
			var err error
			if c, err = m.loadContract(); err != nil {
				return err
			}
		}
		if err := f.Check(c); err != nil {
			return usagef("--toolsets: %v", err)
		}
		m.ServerOptions = append(m.ServerOptions, server.WithTools(f))
	}
	if hf.addr != "" {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		return m.serveHTTP(ctx, &hf, &wf, vocabDirs)
	}
	ws, wsErr := wf.open(nil)
	if wsErr != nil {
		if darkroom.Code(wsErr) != darkroom.Unavailable {
			return wsErr // a bad --allow-root: the user's command line, not the disk
		}
		// Without a workspace the vocabulary and contract tools still work; the tools
		// that need it answer unavailable, saying why, instead of the server not
		// starting: an MCP host shows a server that exits as merely "failed".
		fmt.Fprintf(m.Stderr, "darkroom: no workspace, the editing tools are unavailable: %v\n", wsErr)
		ws = nil
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s, loaded, err := m.stdioServer(vocabDirs, ws, cancel)
	if err != nil {
		return err
	}
	if ws == nil {
		s.WorkspaceErr = wsErr
	}
	err = s.MCP(version.String()).Run(ctx, &server.StdioTransport{In: m.Stdin, Out: m.Stdout, Server: s})
	if lerr := loaded(); lerr != nil {
		return lerr // what the server would have refused to start with
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return darkroom.Wrap(darkroom.InternalError, err, "serve")
	}
	return nil
}
