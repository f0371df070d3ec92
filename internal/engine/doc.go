// Package engine turns a source image plus a list of edits into pixels: decode, the
// operation pipeline in its fixed stage order, masks, resize and encode. It knows
// nothing of MCP or CUE: its callers pass operation arguments that the contract layer
// has already validated and completed with defaults, and it returns coded errors
// (darkroom.Error) for what can still go wrong with pixels.
package engine
