package server

import (
	"encoding/json"

	"github.com/darkroom-mcp/darkroom/internal/vocab"
	"github.com/darkroom-mcp/darkroom/internal/vocab/pack"
)

// The server is the Editor's Judge (edit.Judge): CUE's checks of a call's data,
// kept at the boundary where the contract is. The domain asks only for what the
// one check of a call (check.go) did not complete.

// Values is the Editor's Judge of an entry's value: CUE's check of it against
// the entry's #values (pack.Values), at the boundary. The one check of a call
// (above) asks it only to say a refusal in the entry's terms.
func (s *Server) Values(e *vocab.Entry, value json.RawMessage) (map[string]float64, error) {
	return pack.Values(s.Contract, e, value)
}

// CheckMask is the Editor's Judge of a mask_spec: CUE's check of it against
// #MaskRef, defaults filled, finished as the state records it (Editor.FinishMask).
func (s *Server) CheckMask(raw json.RawMessage) (json.RawMessage, error) {
	spec, err := s.Contract.CheckValue(s.Contract.Lookup("#MaskRef"), "mask_spec", raw)
	if err != nil {
		return nil, err
	}
	return s.FinishMask(spec)
}
