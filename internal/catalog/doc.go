// Package catalog holds the contract's facts as plain Go data: the engine's
// operation catalog (operations, their arguments, ranges and defaults), the mask
// defaults, the contract's version and the albumentations readings. The domain
// (internal/edit, internal/augment through edit) works from these; only
// internal/contract makes them, from CUE (contract.Contract.Facts), never a
// hand-written copy. This package imports no CUE, so a package that needs contract
// facts but judges no request does not carry the CUE evaluator.
package catalog
