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
//	    log.jsonl            the operation log, one JSON object per line, append-only; the
//	                         only file a mutation fsyncs (see Crash safety)
//	    meta.json            the caller's metadata object (canonical JSON), unversioned
//	    lock                 flock target serializing the image's mutations across processes
//	    .tmp-*               a write in progress, or left by a crash (removed when a workspace
//	                         opens, by RemoveStaleTemps, once no writer holds the lock)
//
// Image ids, branch and tag names are 1 to 64 characters of a-z, 0-9, '_', '-', '.',
// starting with a letter or digit, without "..". Init creates branch main and tag
// baseline at the baseline state, with HEAD on main.
//
// A log line is {"time", "op", "hash", "parent", "ref", "label"}, and "state" when it
// carries one: op is init, commit, branch, tag or checkout; ref is the ref the
// operation set and hash its new value. A commit on a detached HEAD has ref "HEAD"; a
// checkout has ref "refs/heads/<b>" when HEAD now names that branch and "HEAD" when it
// is detached. parent is HEAD's hash before a commit or checkout, "" otherwise. label
// is the commit's label (the spec for a checkout). state is the canonical JSON of the
// snapshot hash names, byte for byte the object's content (so it hashes to hash): every
// commit's line carries it, unless it is over 64 KiB, and so does a branch, tag or
// checkout that names its snapshot by a hash rather than a ref; init's lines do not. A
// commit or checkout that moves nothing and repeats the log's last entry exactly (op,
// ref, hash, label) is not logged again (repeat.go). For example:
//
//	{"time":"2026-01-02T10:00:00Z","op":"init","hash":"9f2c…","parent":"","ref":"refs/heads/main","label":"baseline"}
//	{"time":"2026-01-02T10:00:00Z","op":"tag","hash":"9f2c…","parent":"","ref":"refs/tags/baseline","label":""}
//	{"time":"2026-01-02T10:00:05Z","op":"commit","hash":"41ab…","parent":"9f2c…","ref":"refs/heads/main","label":"exposure +0.7","state":{"entries":[…]}}
//
// Logs written before lines carried states (their objects were fsynced before their
// lines) are read as they are: a line without a state names an object made durable
// before it. A log with states cannot be read by a darkroom older than this format,
// whose reader refuses unknown fields.
//
// # Crash safety
//
// A mutation costs one fsync, the log append's; the log is the only durable record it
// needs. It writes the object (when new) by a temporary file renamed over its name,
// then appends its log line carrying the state and fsyncs the log, then renames the
// ref's new content, staged beforehand, over the ref. Neither the object nor the ref
// is fsynced. A state over 64 KiB is not carried: its object is fsynced, with its
// directory, before the line, as every object was before lines carried states. Init
// writes and fsyncs the whole image in a hidden directory and publishes it by a
// rename, fsynced; meta.json is replaced atomically and durably (fsx).
//
// Against a crash of the process (kill -9), the page cache survives: the refs and
// objects a dead process wrote are as it left them, so a crash leaves at worst an
// object nothing names (harmless), a torn last log line (ignored by readers, cut off
// by the next append), or a logged operation whose ref has not moved. Every access
// completes that operation before doing anything else (the log is a redo journal), so
// the refs always agree with the log.
//
// Against a crash of the machine (a power cut), only the log is known to be on disk
// up to its last fsynced line; any ref, HEAD or object written since the file system
// last flushed may be missing, empty, zeros, cut short, or (a ref or HEAD) back at a
// value the log gave it earlier, for more than the last operation. A power cut ends
// every process, so the first access to an image by a process (by a Store) replays the
// whole log under the image's lock (replay.go): each ref and HEAD are set to the value
// the log last gave them and each object a line carries is rewritten from it, where
// they are in one of those states; the repairs are fsynced. Anything else (a ref at a
// hash the log never gave it, a ref the log never creates, an object no line carries
// that is missing) is not what a crash leaves: replay leaves it, Check reports it and
// the reads that meet it refuse it as damage. Later accesses by the same process only
// check the last line, which is enough while the page cache survives: only a process
// can die between two of them. Replaying a log of a few hundred lines reads it and
// the objects its lines carry once (BenchmarkFirstAccess).
//
// So an operation is acknowledged once its line is fsynced and its ref renamed, and
// nothing acknowledged is lost to either kind of crash. Check verifies all of this,
// replays the whole log first whether or not the process has, removes a snapshot no
// line names whose content is not its own (what a cut leaves of an object written by
// a call that never logged it), and reports what it repaired.
//
// # A failed call
//
// A call that returns an error has not happened, and never happens later: recovery
// completes only operations whose call got no answer at all. The error path rolls the
// log back before it returns. To make that possible without allocating anything after
// the log moves, a mutation stages everything first: the object and the ref's new
// content, in temporary files. Then:
//
//  1. append the log line and fsync it; if that fails, truncate the log back to its
//     size before the line (and fsync), so a partial line is gone too;
//  2. rename the staged ref into place; if that fails, truncate the log back.
//
// Nothing follows the rename, so a call that got past it has succeeded. A full disk
// (ENOSPC) or exhausted quota or inodes (EDQUOT) fails one of the staging writes or
// step 1; truncating and renaming free space rather than take it, so the rollback
// succeeds on a full disk. Such a failure is coded unavailable, recoverable: nothing
// was changed; free space and retry.
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
// A power cut at any of these points leaves the log as the kill would (an append or
// truncation is durable once its fsync returned, and no answer is sent before that),
// and replay brings the refs and objects to what it says.
//
// One case cannot keep the rule: the rollback itself fails (truncating the log gives
// an I/O error, which a full disk does not cause). Then the store finishes the
// operation instead, and the call succeeds; only if that fails too is the answer
// internal_error saying the operation is logged and the next access completes it
// (details outcome "logged"), so that a client does not retry it. BranchCheckout,
// whose checkout fails after its branch was logged, removes the branch (fsyncing the
// removal: a ref the log does not create is damage, not a crash's leftover) before it
// truncates the log.
//
// Mutations of one image are serialized by an in-process lock plus an flock on its
// lock file, so several processes can share a workspace; reads take the shared form of
// both. Different images proceed in parallel. The lock file is opened for reading
// (flock needs no more), so a workspace this process cannot write (a read-only mount,
// another user's files) is still read under the writers' lock; where it has no lock
// file yet, no writer has used the image and none can, and a read goes without. A
// write there is permission_error.
package history
