// Package history is the per-image versioned store the editing tools sit on: snapshots
// of an image's edit state, branches, tags, HEAD and an operation log, kept on disk so
// that no crash can leave a ref pointing at nothing. It knows nothing of MCP, CUE or
// pixels: a State is an ordered list of entries {primitive, layer, values, mask,
// strength} plus opaque extra data, and applying semantics live in the editing layer
// (Set, Remove and Diff are helpers for it). Errors are darkroom.Error values with the
// contract's codes.
//
// # Snapshots
//
// A snapshot's hash is the hex SHA-256 of the state's canonical JSON (RFC 8785: keys
// sorted, no insignificant whitespace, numbers written as ECMAScript writes a float64,
// -0 as 0; nil and empty lists and maps encode alike), so equal states have equal
// hashes wherever they come from. Objects hold states only; parents live in the log.
//
// # On-disk layout
//
// Under the workspace root:
//
//	images/
//	  .lock                  flock taken by Init, which is serialized workspace-wide
//	  .tmp-init-*/           an Init that died before publishing; removed by the next Init
//	  <image_id>/            published by renaming a complete build directory
//	    HEAD                 "ref: refs/heads/<branch>\n" or "<hash>\n" (detached)
//	    refs/heads/<branch>  "<hash>\n"
//	    refs/tags/<tag>      "<hash>\n"; tags never move
//	    objects/<hash>.json  the state's canonical JSON; its SHA-256 is <hash>
//	    log.jsonl            the operation log, one JSON object per line, append-only
//	    meta.json            the caller's metadata object (canonical JSON), unversioned
//	    lock                 flock target serializing the image's mutations across processes
//	    .tmp-*               a write in progress, or left by a crash (removed when a workspace
//	                         opens, by RemoveStaleTemps, once no writer holds the lock)
//
// Image ids, branch and tag names are 1 to 64 characters of a-z, 0-9, '_', '-', '.',
// starting with a letter or digit, without "..". Init creates branch main and tag
// baseline at the baseline state, with HEAD on main.
//
// A log line is {"time", "op", "hash", "parent", "ref", "label"}: op is init, commit,
// branch, tag or checkout; ref is the ref the operation set and hash its new value.
// A commit on a detached HEAD has ref "HEAD"; a checkout has ref "refs/heads/<b>" when
// HEAD now names that branch and "HEAD" when it is detached. parent is HEAD's hash
// before a commit or checkout, "" otherwise. label is the commit's label (the spec for
// a checkout). A commit or checkout that moves nothing and repeats the log's last
// entry exactly (op, ref, hash, label) is not logged again (repeat.go). For example:
//
//	{"time":"2026-01-02T10:00:00Z","op":"init","hash":"9f2c…","parent":"","ref":"refs/heads/main","label":"baseline"}
//	{"time":"2026-01-02T10:00:00Z","op":"tag","hash":"9f2c…","parent":"","ref":"refs/tags/baseline","label":""}
//	{"time":"2026-01-02T10:00:05Z","op":"commit","hash":"41ab…","parent":"9f2c…","ref":"refs/heads/main","label":"exposure +0.7"}
//
// # Crash safety
//
// Every file is replaced atomically: written to a temporary file in the same
// directory, fsynced, renamed over the target, and the directory fsynced. A mutation
// writes the object first, then appends its log line (one write, fsynced), then moves
// the ref. So a crash leaves at worst an object nothing names (harmless), a torn last
// log line (ignored by readers, cut off by the next append), or a logged operation whose
// ref has not moved; every access completes that operation before doing anything else
// (the log is a redo journal), so the refs always agree with the log. Check verifies
// all of this and reports what a crash left behind.
//
// # A failed call
//
// A call that returns an error has not happened, and never happens later: recovery
// completes only operations whose call got no answer at all. The error path rolls the
// log back before it returns. To make that possible without allocating anything after
// the log moves, a mutation stages everything first: the object, the ref's new content
// (fsynced) and a copy of the ref's old content, each in a temporary file. Then:
//
//  1. append the log line and fsync it; if that fails, truncate the log back to its
//     size before the line (and fsync), so a partial line is gone too;
//  2. rename the staged ref into place; if that fails, truncate the log back;
//  3. fsync the ref's directory; if that fails, fsync the old copy and rename it back
//     (or remove a ref the call created), fsync the directory, then truncate the log
//     back.
//
// The old ref is restored before the log is truncated, never after, so at every
// instant the refs show either the log's last entry or the state before it, which is
// what recovery expects. A full disk (ENOSPC) or exhausted quota or inodes (EDQUOT)
// fails one of the staging writes or step 1; truncating, renaming and removing free
// space rather than take it, so the rollback succeeds on a full disk. Such a failure is
// coded unavailable, recoverable: nothing was changed; free space and retry.
//
// Against kill -9 at each point of a call:
//
//   - before the log append (while staging): the log and refs are untouched; only
//     temporary files and perhaps an orphan object remain. No answer was sent; the call
//     did not happen.
//   - after the append, before the ref moves (or during a rollback, before the log is
//     truncated): the entry is last in the log and the ref still holds its old value.
//     The next access completes it. No answer was sent, so no client was told it
//     failed: a call that gets no answer may or may not have happened, as over any
//     transport.
//   - after the ref moved, before the answer: the operation is complete and durable;
//     the client got no answer, as above.
//   - after an error answer: the rollback finished before it (the truncation was
//     fsynced), so no later access finds the entry.
//
// One case cannot keep the rule: the rollback itself fails (truncating the log or
// renaming the old ref back gives an I/O error, which a full disk does not cause). Then
// the store finishes the operation instead, and the call succeeds; only if that fails
// too is the answer internal_error saying the operation is logged and the next access
// completes it (details outcome "logged"), so that a client does not retry it.
//
// Mutations of one image are serialized by an in-process lock plus an flock on its
// lock file, so several processes can share a workspace; reads take the shared form of
// both. Different images proceed in parallel. The lock file is opened for reading
// (flock needs no more), so a workspace this process cannot write (a read-only mount,
// another user's files) is still read under the writers' lock; where it has no lock
// file yet, no writer has used the image and none can, and a read goes without. A
// write there is permission_error.
package history
