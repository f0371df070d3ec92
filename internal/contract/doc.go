// Package contract loads the CUE contracts (contracts/*.cue, embedded or from a tree)
// and serves them to the server: it builds each tool's spec and JSON Schemas from CUE
// and validates every call's arguments by unifying them with the tool's params. Nothing
// here restates a schema: ranges, enums, defaults and error codes come from CUE.
// Comparing two contracts is internal/compat's work; this package only loads them (and
// shares Corpus, the argument corpus its agreement test and the differ both run).
package contract
