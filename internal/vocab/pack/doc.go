// Package pack loads vocabulary packs (YAML, JSON or CUE manifests), checks each
// against the contract's #Manifest exactly as `cue vet -c -d '#Manifest'` does, and
// builds the plain vocab.Vocabulary from what passed (vocab.Builder: names unique
// across packs, default masks that exist). It runs at start-up and in `darkroom
// vocab vet`, under bounds (bounds.go), with the verdicts kept between runs
// (cache.go) and large packs checked one entry shape at a time (shape.go).
//
// Values is the one check of a call's value against an entry's #values left
// outside contract.Tool.CheckEntries: the boundary (internal/server) asks it only
// to say a refused value in the entry's terms. The domain never imports this
// package.
package pack
