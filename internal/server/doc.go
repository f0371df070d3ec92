// Package server is the MCP adapter: the only package that builds an MCP server
// or speaks the protocol (internal/auth uses the SDK's auth and oauthex types for
// HTTP bearer tokens and OAuth discovery, nothing more). It registers every tool
// the contract declares, from one table (tools.go), checks each call's arguments
// through the contract once (check.go: one CUE evaluation, contract.Evaluations
// counts it), decodes them into the tool's own argument struct, calls the domain
// package of the tool's concern (the editing service internal/edit, embedded as the
// Server's Editor; internal/augmentation's Service; internal/contextfile;
// internal/verify) and shapes the outcome as the result envelope. Handlers live in one file per contract group
// (vocabulary.go, history.go, …), named like the tools in
// contracts/tools_<group>.cue. The walks of three calls, room by room, are in
// docs/architecture.md.
package server
