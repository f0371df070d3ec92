// Package contract loads the CUE contracts (contracts/*.cue, embedded or from a tree)
// and serves them to the server: it builds each tool's spec and JSON Schemas from CUE
// and validates every call's arguments by unifying them with the tool's params. Nothing
// here restates a schema: ranges, enums, defaults and error codes come from CUE.
// Comparing two contracts is internal/compat's work; this package only loads them (and
// shares Corpus, the argument corpus its agreement test and the differ both run).
//
// The domain does not import this package: it takes the contract's facts as plain
// data (internal/catalog), which Contract.Facts makes from CUE, each the first time
// it is asked for (the catalog's Operations, OperationDefaults, MaskDefaults,
// AlbumentationsMap, the version). The plain types (Operation, Arg, Example,
// MaskDefaults) are catalog's, named here too.
package contract
