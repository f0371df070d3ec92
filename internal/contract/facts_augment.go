package contract

import (
	"encoding/json"
	"fmt"
	"sync"
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
