// Package compat is the contract differ: given two loaded contracts, OLD and NEW, it
// says what the change does to the agents and vocabulary authors that program against
// OLD, and whether NEW's contract_version moved far enough. `darkroom contract diff`
// prints its report; CI fails on it. It reads CUE values through internal/contract and
// knows nothing of MCP.
//
// # What it decides
//
// Every difference is a Finding: a tool (or a group that is not a tool: #Manifest,
// the operation catalog, the error codes, the result envelope), a JSON path into it,
// the old and new value described as JSON types, a verdict and the rule that gave it:
//
//	list_vocabulary
//	  breaking      params.limit  integer 1..200 or null → integer 1..100 or null  (tightened bound)
//	  additive      data.entries[].unit  absent → required string  (added field)
//
// The verdict is breaking, additive, or needs review (a change the differ cannot
// decide, counted as breaking). Which one depends on the direction a value travels:
// params, #Manifest and the operation catalog are inputs, read contravariantly (NEW
// must accept every call or pack OLD accepted); data and the envelope are outputs,
// read covariantly (every NEW result must satisfy a client of OLD, which ignores keys
// it does not know). changeRules maps each structural change (field added, bound
// tightened, enum value removed, object closed, ...) to its verdict on either side;
// docs/contract-review.md is that table for reviewers, and TestRuleTable checks it row
// by row in both directions. Tool metadata has its own rules: removal (allowed once a
// deprecated tool is past its removeAfter), deprecation, annotations (a weaker promise
// breaks), declared error codes. The error-code enum is decided once, by its own rule
// (a code added is additive, one removed or changed breaking), wherever it appears:
// in the envelope's error.code and in get_contract's list (ownedEnums).
//
// CheckVersion then asks for the minor (below 1.0.0) or the major to move for a
// breaking change, at least the minor for an additive one. Diff.JudgeSince judges the
// same change against a released version instead, so that CI's diff against the
// previous commit asks for the bump since the release, which several commits share.
//
// # How
//
// Each CUE value becomes a shape (shape.go, alt.go): the set of JSON values it accepts,
// as alternatives of one JSON kind each, with their fields (required or optional),
// pattern fields, closedness, numeric bounds, lengths, item counts, patterns, enum
// constants, defaults and validators. The shape is read from the value's structure
// (Expr, Fields, references), never from cue.Value.Subsume, which on cuelang.org/go
// v0.17.1 misjudges list element types, open→closed structs, regular-expression
// widening and defaults. Two shapes are compared alternative by alternative (unions
// of objects arm by arm, matched by a discriminating field or definition name), and
// each difference is named as a change without polarity; the polarity turns it into
// a verdict.
//
// Reading CUE structurally has traps, each pinned by a rule test: v0.17.1 judges an
// open list's validators on the empty list, so [...] & list.MinItems(1) evaluates to
// an error and, beside | null, to null alone (lists are recognised before structs,
// and a disjunction's arms before asking whether it is concrete); a reference to a
// let has no path and Expr only repeats it (its evaluated value is read instead); a
// struct whose field needs an import is printed as a file; and a struct that cannot
// be evaluated without data (#Entry) accepts any probe key, so its closedness is read
// as written (inside a definition and without "...", it is closed).
//
// What the model cannot take apart is kept as written, so the differ still tells
// "identical" from "changed": a changed regular expression (whether one accepts more
// than another is not computed; one added beside the old ones narrows, one dropped
// widens), a custom validator (any call but strings.MinRunes/MaxRunes and
// list.MinItems/MaxItems/UniqueItems), a comprehension rule computed from the value
// itself, a pattern field whose key set is not a regular expression. Any change to
// those is needs review.
//
// # Examples
//
// A compatible verdict is backed by examples from NEW (examples.go): the
// argument corpus of contract.Corpus must still pass NEW's params, the recorded
// results of the golden transcripts (testscripts/*.txtar) must satisfy OLD's data,
// and the vocabulary packs that passed OLD's #Manifest must pass NEW's. A failing
// example is a breaking finding that names it. The transcripts write stand-ins for
// values no golden can know ($NAME for a value captured with `let NAME`, $WORK,
// "<time>", "<png N bytes WxH>"); a string holding one is written as _ and the
// incomplete value at its path is dropped from the errors, so the stand-in is never
// judged while the rest of the result still is. Values of an owned enum are skipped
// the same way: their rule has judged them.
package compat
