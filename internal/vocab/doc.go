// Package vocab loads vocabulary packs (YAML, JSON or CUE manifests), checks each
// against the contract's #Manifest exactly as `cue vet -c -d '#Manifest'` does, checks
// what only the whole set can tell (names unique across packs, default masks that
// exist), and answers the listing tools' questions.
package vocab
