package catalog

// Operation is one entry of the engine's operation catalog (contracts/operations.cue).
type Operation struct {
	Name        string `json:"name"`
	Stage       string `json:"stage"`
	Description string `json:"description"`
	Seeded      bool   `json:"seeded"`
	Maskable    bool   `json:"maskable"`
	// FramingBound operations only fit their own frame (positions, framing).
	FramingBound bool      `json:"framing_bound"`
	Examples     []Example `json:"examples"`
	Args         []Arg     `json:"-"`
}

// Example is a telling set of arguments for an operation, complete with defaults.
type Example struct {
	Label string         `json:"label"`
	Args  map[string]any `json:"args"`
}

// Arg is one argument of an operation.
type Arg struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Unit        string   `json:"unit,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Default     any      `json:"default"`
	Values      []string `json:"values,omitempty"`
}

// MaskDefaults are the defaults #MaskSpec fills: those of the spec itself
// (invert) and, by shape kind, those of each #Shape (rotation, feather).
type MaskDefaults struct {
	Spec  map[string]any
	Shape map[string]map[string]any
}

// Complete returns a drawn mask spec with every default it lacks filled, as the
// contract's check of #MaskRef completes it. It does not check the spec: the caller
// built it from arguments the contract checked.
func (d MaskDefaults) Complete(spec map[string]any) map[string]any {
	out := make(map[string]any, len(spec)+len(d.Spec))
	for k, v := range d.Spec {
		out[k] = v
	}
	for k, v := range spec {
		out[k] = v
	}
	if shape, ok := spec["shape"].(map[string]any); ok {
		kind, _ := shape["kind"].(string)
		full := make(map[string]any, len(shape)+len(d.Shape[kind]))
		for k, v := range d.Shape[kind] {
			full[k] = v
		}
		for k, v := range shape {
			full[k] = v
		}
		out["shape"] = full
	}
	return out
}

// Facts are the contract's facts the domain needs, as plain Go data. The contract
// makes them from CUE (contract.Contract.Facts), each the first time it is asked
// for, so that a start-up that needs none of them evaluates none; after that an
// answer is a plain value. Whoever holds Facts reads no CUE.
type Facts struct {
	// Version is the contract's version (contract_version).
	Version string
	// Operations returns the catalog in stage order, then by name.
	Operations func() ([]Operation, error)
	// OperationDefaults returns each operation's argument defaults, by operation and
	// argument name, as the contract's check fills them (decoded from JSON, so
	// numbers are float64). The maps are shared and must not be changed.
	OperationDefaults func() (map[string]map[string]any, error)
	// MaskDefaults returns what #MaskSpec and #Shape's kinds fill.
	MaskDefaults func() (MaskDefaults, error)
	// Albumentations returns the albumentations readings checked against
	// #AlbumentationsMap, defaults filled, as JSON.
	Albumentations func() ([]byte, error)
}
