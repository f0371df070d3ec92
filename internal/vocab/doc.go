// Package vocab is the vocabulary as the domain uses it, in plain Go: the packs'
// entries (their parameters, operations and prompts), named masks and presets,
// with the listing tools' lookups (Select, SelectMasks, Categories), suggestions
// for a name no entry has (Suggest, EditDistance), ADR-079's value shapes
// (ValueObject, ShapeError) and the check of values a verb computes itself
// (DerivedValues). A Builder assembles a Vocabulary from packs already checked and
// checks what only the whole set can tell (names unique across packs, default
// masks that exist, presets naming other packs' entries).
//
// Loading and checking packs against the contract's #Manifest is
// internal/vocab/pack's, with CUE; this package imports no CUE and no contract, so
// the domain that uses it does not carry the CUE evaluator (TestDomainImportsNoCUE
// in internal/catalog holds every domain package to that).
package vocab
