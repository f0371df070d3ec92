// Package contract loads the embedded CUE contracts (contracts/*.cue) and is the only
// place that reads them: it builds each tool's spec and JSON Schemas from CUE and
// validates every call's arguments by unifying them with the tool's params. Nothing
// here restates a schema: ranges, enums, defaults and error codes come from CUE.
package contract
