// Package server is the MCP adapter, and the only package that imports the MCP SDK.
// It registers every tool the contract declares, from one table (tools.go), checks
// each call's arguments through the contract, decodes them into the tool's own
// argument struct, calls the editing service (internal/edit, embedded as the
// Server's Editor) and shapes the outcome as the result envelope. Handlers live in
// one file per contract group (vocabulary.go, history.go, …), named like the tools
// in contracts/tools_<group>.cue. The walk of one call, hop by hop, is in
// internal/edit's doc.
package server
