package contract

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

// CUE is the only judge of a call's arguments, and it judges each call once: the
// tool's params unified with the arguments (Tool.Check), or, for a call that names a
// vocabulary entry, the params with that entry's #values in place of the generic
// value (Tool.CheckEntry). Below the server's adapter the domain works on the
// checked, completed values and evaluates nothing again.
//
// A cue.Context is not safe for concurrent use, and values of one context cannot
// be used in another. So the contract's own context is guarded by Contract.mu, and
// a check that finds it taken borrows an evaluator from a pool instead: a context of
// its own with the contract evaluated from the same files, made when first needed
// (at most one per core beyond the first), then kept. A CLI run makes one call and
// never makes one.

// evaluations counts CUE evaluations of a request's data, process-wide.
var evaluations atomic.Int64

// Evaluations returns how many times CUE has evaluated a request's data in this
// process (each unification of arguments with a schema): a test takes it before and
// after a call to see that the call was checked once.
func Evaluations() int64 { return evaluations.Load() }

// evaluator is one CUE context with the contract evaluated in it, and the schemas
// built from it so far. Only the goroutine holding it uses it.
type evaluator struct {
	root cue.Value
	// own marks the contract's own evaluator (its params are the tools' own).
	own bool
	// entries: a tool's params with an entry's #values in place, by entryKey.
	entries map[string]cue.Value
}

// pool is the contract's further evaluators.
type pool struct {
	fsys fs.FS
	free chan *evaluator
	made atomic.Int32
	max  int32
}

func newPool(fsys fs.FS) *pool {
	n := max(runtime.GOMAXPROCS(0)-1, 1)
	return &pool{fsys: fsys, free: make(chan *evaluator, n), max: int32(n)}
}

// get returns a free evaluator, making one if fewer than max exist, or waiting for
// one; nil if the contract's files no longer evaluate (the caller waits for the
// contract's own).
func (p *pool) get() *evaluator {
	select {
	case ev := <-p.free:
		return ev
	default:
	}
	if p.made.Add(1) <= p.max {
		ev, err := p.evaluator()
		if err != nil {
			p.made.Add(-1)
			return nil
		}
		return ev
	}
	p.made.Add(-1)
	return <-p.free
}

func (p *pool) put(ev *evaluator) { p.free <- ev }

func (p *pool) evaluator() (*evaluator, error) {
	overlay, _, err := sources(p.fsys, "contracts")
	if err != nil {
		return nil, err
	}
	insts := load.Instances([]string{"./contracts"}, &load.Config{Dir: Root, Overlay: overlay})
	if len(insts) != 1 || insts[0].Err != nil {
		return nil, errLoad
	}
	v := cuecontext.New().BuildInstance(insts[0])
	if v.Err() != nil {
		return nil, v.Err()
	}
	return &evaluator{root: v, entries: map[string]cue.Value{}}, nil
}

// operationArgs returns #OperationArgs of the named operation: the closed struct of
// its arguments with their defaults. Only a stateless render (darkroom render --op)
// checks operations' arguments now, once per operation it names, so a focused
// contract evaluates the whole for it. The caller holds c.mu.
func (c *Contract) operationArgs(name string) cue.Value {
	return c.value().LookupPath(cue.MakePath(cue.Def("OperationArgs"), cue.Str(name)))
}

type loadError string

func (e loadError) Error() string { return string(e) }

const errLoad = loadError("contracts do not load")

// withEvaluator runs f with an evaluator held: the contract's own when free,
// else one from the pool.
func (c *Contract) withEvaluator(f func(ev *evaluator)) {
	if c.pool != nil && !c.mu.TryLock() {
		if ev := c.pool.get(); ev != nil {
			defer c.pool.put(ev)
			f(ev)
			return
		}
		c.mu.Lock()
	} else if c.pool == nil {
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	if c.own == nil {
		c.own = &evaluator{own: true, entries: map[string]cue.Value{}}
	}
	c.own.root = c.Value
	f(c.own)
}

// params returns the tool's params in ev's context.
func (ev *evaluator) params(t *Tool) cue.Value {
	if ev.own {
		return t.params
	}
	return ev.root.LookupPath(cue.MakePath(cue.Str("tools"), cue.Str(t.key), cue.Str("params")))
}

// EntryValue names the vocabulary entry a call's value is for, so that one
// evaluation checks the value with the rest of the arguments (ADR-079): nothing
// for an entry without parameters, a number for one parameter (Single), an object
// keyed by parameter name for several.
type EntryValue struct {
	// Entry is the entry as its pack was checked (JSON with its parameters).
	Entry json.RawMessage
	// Parameters are the names of its parameters.
	Parameters []string
	// DefaultMask is the mask applied when the call gives none ("" for none).
	DefaultMask string
	// At is where in the arguments the object holding value and mask_spec lies:
	// "" for the top level, "regions.2" for an element of a list.
	At string
}

// at returns the path of field under e.At.
func (e EntryValue) at(field string) cue.Path {
	var sels []cue.Selector
	if e.At != "" {
		for _, s := range strings.Split(e.At, ".") {
			if i, err := strconv.Atoi(s); err == nil {
				sels = append(sels, cue.Index(i))
			} else {
				sels = append(sels, cue.Str(s))
			}
		}
	}
	return cue.MakePath(append(sels, cue.Str(field))...)
}

// maxEntrySchemas bounds the schemas an evaluator keeps: a call with several
// entries (regions) is keyed by all of them, which a client could vary at will.
const maxEntrySchemas = 4096

// maskFill is what entryParams puts at an entry's mask_spec.
type maskFill uint8

const (
	// maskGiven: the call gave a mask_spec; the params keep the schema there.
	maskGiven maskFill = iota
	// maskDefault: none given, and the entry has a default mask: its name.
	maskDefault
	// maskNone: none given and no default: null where mask_spec is optional (it
	// stays absent in the result). An optional mask_spec left to the schema is
	// still evaluated with every shape it may take: about half of an
	// apply_primitive's check, for a field the call does not have.
	maskNone
)

// entryParams returns the tool's params with each entry's #values at its value
// and its mask_spec filled as masks[i] says, made once per evaluator.
func (ev *evaluator) entryParams(t *Tool, es []EntryValue, masks []maskFill) cue.Value {
	var key strings.Builder
	key.WriteString(t.key)
	for i, e := range es {
		fmt.Fprintf(&key, "\x00%s\x00%s\x00%d", e.At, e.Entry, masks[i])
		if masks[i] == maskDefault {
			key.WriteString("\x00" + e.DefaultMask)
		}
	}
	if p, ok := ev.entries[key.String()]; ok {
		return p
	}
	p := ev.params(t)
	ctx := p.Context()
	for i, e := range es {
		var schema cue.Value
		switch len(e.Parameters) {
		case 0:
			schema = ctx.CompileString("null")
		default:
			v := ev.root.LookupPath(cue.ParsePath("#EntryValues"))
			ps := cue.ParsePath("parameters")
			if p := ctx.CompileBytes(e.Entry).LookupPath(ps); p.Exists() {
				v = v.FillPath(ps, p)
			}
			schema = v.LookupPath(cue.MakePath(cue.Def("values")))
			if len(e.Parameters) == 1 {
				schema = schema.LookupPath(cue.MakePath(cue.Str(e.Parameters[0])))
			}
		}
		p = p.FillPath(e.at("value"), schema)
		switch masks[i] {
		case maskDefault:
			p = p.FillPath(e.at("mask_spec"), ctx.Encode(map[string]any{"name": e.DefaultMask}))
		case maskNone:
			if optionalField(p, e, "mask_spec") {
				p = p.FillPath(e.at("mask_spec"), ctx.CompileString("null"))
			}
		}
	}
	if len(ev.entries) < maxEntrySchemas {
		ev.entries[key.String()] = p
	}
	return p
}

// CheckEntry is Check for a call whose value is for the entry e: the arguments are
// unified with the tool's params and the entry's #values in one evaluation, and
// come back with value in the entry's own shape, its defaults filled (a number for
// one parameter, an object for several, null for none), and, when the call gave no
// mask_spec and the entry has a default mask, mask_spec completed for that mask.
// The error is the unification's; the caller may explain it (see vocab.Values).
func (t *Tool) CheckEntry(raw json.RawMessage, e EntryValue) (map[string]any, error) {
	return t.CheckEntries(raw, []EntryValue{e})
}

// CheckEntries is CheckEntry for a call that names several entries, each at its
// own place in the arguments (EntryValue.At: apply_per_region's regions): all are
// checked in the same one evaluation.
func (t *Tool) CheckEntries(raw json.RawMessage, es []EntryValue) (map[string]any, error) {
	t.contract.ensure(t)
	c := t.contract
	args, ferrs := c.decodeArgs(raw, t.argumentNodes())
	if ferrs != nil {
		return nil, invalid(t.Name, ferrs)
	}
	masks := make([]maskFill, len(es))
	for i, e := range es {
		holder := args
		if e.At != "" {
			holder, _ = lookupObject(args, e.At)
		}
		if _, given := holder["mask_spec"]; given {
			continue
		}
		masks[i] = maskNone
		if e.DefaultMask != "" {
			masks[i] = maskDefault
		}
	}
	var out map[string]any
	var err error
	c.withEvaluator(func(ev *evaluator) {
		out, err = c.unify(ev.entryParams(t, es, masks), t.Name, args)
	})
	if err != nil {
		return nil, err
	}
	// A mask_spec filled with null only to spare its evaluation was not given:
	// the result does not have it either.
	for i, e := range es {
		if masks[i] != maskNone {
			continue
		}
		holder := out
		if e.At != "" {
			holder, _ = lookupObject(out, e.At)
		}
		if v, ok := holder["mask_spec"]; ok && v == nil {
			delete(holder, "mask_spec")
		}
	}
	return out, nil
}

// optionalField reports whether name is an optional field of the struct at e.At in
// params (false where that struct cannot be found, a list's element).
func optionalField(params cue.Value, e EntryValue, name string) bool {
	parent := params
	if e.At != "" {
		sels := e.at(name).Selectors()
		parent = params.LookupPath(cue.MakePath(sels[:len(sels)-1]...))
	}
	iter, err := parent.Fields(cue.Optional(true))
	if err != nil {
		return false
	}
	for iter.Next() {
		if iter.Selector().Unquoted() == name {
			return iter.IsOptional()
		}
	}
	return false
}

// lookupObject returns the object at a dotted path of decoded arguments (list
// elements by index), or nil.
func lookupObject(args map[string]any, at string) (map[string]any, bool) {
	var cur any = args
	for _, s := range strings.Split(at, ".") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[s]
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}
