package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/encoding/yaml"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Facts the augmentation domain needs, as plain Go data made from the contract at
// start-up, so that a pipeline's steps resolve and render without a CUE evaluation
// per step or per variant.

// factsMu serialises decoding the catalog: it walks the contract's CUE value, which
// is not safe to do from several goroutines at once.
var factsMu sync.Mutex

// operationDefaults holds OperationDefaults' result per contract.
var operationDefaults sync.Map // *Contract -> *defaultsOnce

type defaultsOnce struct {
	once sync.Once
	defs map[string]map[string]any
	err  error
}

// OperationDefaults returns each operation's argument defaults, by operation and
// argument name, as the contract's check (CheckOperation) fills them: decoded from
// JSON, so numbers are float64. Every operation of the catalog has an entry, empty
// when none of its arguments has a default. Made once per contract; the maps are
// shared and must not be changed.
func (c *Contract) OperationDefaults() (map[string]map[string]any, error) {
	v, _ := operationDefaults.LoadOrStore(c, &defaultsOnce{})
	d := v.(*defaultsOnce)
	d.once.Do(func() {
		factsMu.Lock()
		ops, err := c.Operations()
		factsMu.Unlock()
		if err != nil {
			d.err = err
			return
		}
		d.defs = make(map[string]map[string]any, len(ops))
		for _, op := range ops {
			args := map[string]any{}
			for _, a := range op.Args {
				if a.Default == nil {
					continue
				}
				b, err := json.Marshal(a.Default)
				var v any
				if err == nil {
					err = json.Unmarshal(b, &v)
				}
				if err != nil {
					d.err = fmt.Errorf("operation catalog: %s.%s default: %w", op.Name, a.Name, err)
					return
				}
				args[a.Name] = v
			}
			d.defs[op.Name] = args
		}
	})
	return d.defs, d.err
}

// AlbumentationsFile is where the albumentations readings live in darkroom.Files.
const AlbumentationsFile = "vocabulary/albumentations/transforms.yaml"

// albumentationsMaps holds AlbumentationsMap's result per contract.
var albumentationsMaps sync.Map // *Contract -> *albuOnce

type albuOnce struct {
	once sync.Once
	json []byte
	err  error
}

// AlbumentationsMap returns the albumentations readings (AlbumentationsFile)
// checked against #AlbumentationsMap, defaults filled, as JSON for augment to
// decode: checked once per contract, when first asked for. The check is of the
// contract's own file, not of a request's data: Evaluations does not count it.
func (c *Contract) AlbumentationsMap() ([]byte, error) {
	v, _ := albumentationsMaps.LoadOrStore(c, &albuOnce{})
	l := v.(*albuOnce)
	l.once.Do(func() {
		data, err := darkroom.Files.ReadFile(AlbumentationsFile)
		if err != nil {
			l.err = darkroom.Wrap(darkroom.InternalError, err, "read %s", AlbumentationsFile)
			return
		}
		raw, err := YAMLToJSON(AlbumentationsFile, data)
		if err != nil {
			l.err = err
			return
		}
		args, ferrs := c.decodeArgs(raw, maxArgumentNodes)
		if ferrs != nil {
			l.err = invalid(AlbumentationsFile, ferrs)
			return
		}
		schema := c.Lookup("#AlbumentationsMap")
		var checked map[string]any
		c.Evaluate(func() {
			checked, err = c.unifyData(schema, AlbumentationsFile, args)
		})
		if err != nil {
			l.err = err
			return
		}
		if l.json, err = json.Marshal(checked); err != nil {
			l.err = darkroom.Wrap(darkroom.InternalError, err, "%s", AlbumentationsFile)
		}
	})
	return l.json, l.err
}

// YAMLToJSON reads a YAML document (A.save's YAML, the albumentations readings) as
// JSON. A document that is not YAML, or not plain data, is invalid_input.
func YAMLToJSON(name string, data []byte) (out []byte, err error) {
	// cuelang.org/go's YAML decoder panics on some malformed input (see
	// dataset.ParseDataYAML): a bad file is the user's error, not a crash.
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, darkroom.Errorf(darkroom.InvalidInput, "%s: not YAML (the decoder failed: %v)", name, p)
		}
	}()
	f, err := yaml.Extract(name, data)
	if err != nil {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s: not YAML: %v", name, firstLine(err.Error()))
	}
	v := cuecontext.New().BuildFile(f)
	if v.Err() != nil {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s: not YAML: %v", name, firstLine(v.Err().Error()))
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "%s: not data: %v", name, firstLine(err.Error()))
	}
	return b, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
