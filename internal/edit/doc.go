// Package edit is the editing layer: the service the MCP adapter (internal/server)
// and the CLI call to ingest photos, apply, remove and reset entries, bind layer
// templates, draw previews and comparisons, export, and move through an image's
// history. It owns the rules of the editing model (DESIGN.md): an image's state is an
// ordered list of entries, applying sets an entry in place, templates sit beneath
// the image's own entries, and every mutation is one snapshot whose description
// (Mutation, state_after) is built from what the store committed under the image's
// lock, never from HEAD read again.
//
// It speaks domain types (history.Entry, history.State, Mutation, Resolved,
// Exported) and returns coded errors, *darkroom.Error, whose codes are the
// contract's closed enum (contracts/errors.cue); only the adapter turns them into an
// envelope. It knows nothing of MCP, and imports no CUE: it works from the
// contract's facts as plain data (Editor.Facts, a catalog.Facts the contract made
// from CUE: the operation catalog, the operations' and the masks' defaults, the
// albumentations readings, the version), never checking a request:
// apply_primitive's and apply_per_region's values and masks come to it already
// checked (PrimitiveEdit.Checked); values a verb computes itself (apply_spot's
// offset, wb_from_gray_card's white balance) are checked in plain Go against the
// entry's parameters (vocab.Entry.DerivedValues) and the spot's drawn mask
// completed with the contract's defaults (catalog.MaskDefaults). The CLI comes
// through the same check (server.Invoke), and augmentation does not make
// PrimitiveEdits. A PrimitiveEdit without Checked comes from a call the check could
// not name every entry of (an unknown primitive_name, which LookupEntry refuses);
// the editor asks the boundary to check it (Editor.Judge, the server, with CUE) on
// the way to that refusal.
//
// It edits in a workspace (internal/workspace): the history store, the copies of
// the sources, previews and exports, all written by one atomic and durable writer
// (internal/fsx: a temporary file, fsync, rename, fsync of the directory; the
// history writes its own files, durable through its log: internal/history), and the
// one gate through which a client's path is read. Paths in
// results are relative to the workspace. The other concerns that share the
// workspace have their own packages: the context files (internal/contextfile),
// augmentation sessions and dataset runs (internal/augmentation, whose Service
// embeds the Editor to render workspace images) and verification
// (internal/verify).
//
// # One apply_primitive, from the transport to the commit
//
// The value an agent sends is checked once by CUE, and then only moves forward (its
// JSON is parsed more than once on the way; docs/architecture.md has this walk
// beside augment_image's and augment_dataset's, and what is not yet as it should be):
//
//  1. internal/server, stdio transport (stdioConn.accept): the line's head is
//     scanned (id, method, depth) and the SDK decodes the message, keeping the
//     tool's arguments raw; it hands tools/call to the tool's registered handler.
//  2. server.Invoke, server.check: the contract checks the raw arguments against
//     the tool's params with the named entry's #values in place of the generic
//     value and its default mask filled (contract.Tool.CheckEntry: strict JSON,
//     one CUE unification, defaults filled; ADR-079's shapes). This is the only
//     CUE evaluation of the call (contract.Evaluations counts them). A refused call
//     is said in terms of the entry's parameter and range (Editor.ExplainValue,
//     server.Server.Values), evaluating again only to word the error.
//  3. The handler from the one tool table (server.tools) decodes the checked
//     arguments into its own struct (applyArgs: a misspelt field does not compile)
//     and calls Editor.Apply with a PrimitiveEdit carrying the typed values;
//     Apply makes the state entry with Editor.StateEntry.
//  4. Editor.StateEntry (checkedEntry): in plain Go, the mask's name is looked up
//     among the packs' masks, a mask on a geometry entry is refused (the catalog's
//     maskable), and CheckEntry expands the entry to engine edits (resolve.Edits)
//     to prove it resolves; those edits are dropped (a render resolves again). The
//     operations' arguments need no check of their own: the manifest makes each
//     bound parameter's range fit its argument's.
//  5. Editor.Mutate: history.Store.Update runs the change under the image's lock:
//     it reads HEAD's state, sets the entry (history.State.Set, replacing an
//     entry with the same primitive and mask), encodes the canonical JSON, hashes
//     it and commits object, log line and ref. The stored entries are not checked
//     again: each was checked when it was applied, so a commit costs the same with
//     25 entries as with none (BenchmarkApplyPrimitive in internal/server).
//  6. Update returns history.Committed (the log entry, HEAD and the state as
//     stored); committedMutation describes exactly that commit as the Mutation,
//     so state_after.head is the call's own snapshot_hash however many calls race.
//  7. The handler writes the summary line; server.Call shapes the envelope and
//     the MCP result (one shaping path, also for the transport's own refusals).
//
// A render reads the other way and trusts the store: ResolveEdits resolves a spec
// to its stored state, and Edits expands each entry through its vocabulary entry
// into engine edits (resolve.Edits), completing the operation arguments from the
// catalog's defaults (catalog.Facts.OperationDefaults) without evaluating CUE. A stored state that does not decode is a
// state_error; an entry whose pack is gone is a render_error.
package edit
