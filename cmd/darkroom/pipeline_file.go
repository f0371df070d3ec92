package main

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/contract"
)

// pipelineFile reads --pipeline @FILE: a pipeline in a file (config.json, or an
// albumentations pipeline A.save wrote as JSON or YAML; - is stdin). ok is false
// when the flag is not given as @FILE.
func (m *Main) pipelineFile(f *paramFlag) (any, bool, error) {
	if f == nil || len(f.values) != 1 || !strings.HasPrefix(f.values[0], "@") {
		return nil, false, nil
	}
	name := f.values[0][1:]
	data, err := m.readInput(name)
	if err != nil {
		return nil, false, err
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		if data, err = contract.YAMLToJSON(filepath.Base(name), data); err != nil {
			return nil, false, err
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, false, darkroom.Errorf(darkroom.InvalidInput, "--pipeline %s: not JSON: %v", filepath.Base(name), err)
	}
	return v, true, nil
}
