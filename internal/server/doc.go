// Package server is the only package that imports the MCP SDK. It registers every
// tool the contract declares, validates each call through the contract, runs the
// tool's handler and wraps the outcome in the result envelope. Handlers live in one
// file per contract group (vocabulary.go, contract.go, …), named like the tools in
// contracts/tools_<group>.cue.
package server
