// Package contextfile keeps what an agent should know about a photo beyond its
// pixels, as files under the workspace's context/ directory: the user's tastes, each
// image's brief and notes, the vocabulary gaps an agent logged and the proposals to
// change a text, which the user confirms. Its one job is those files and their
// rules: a text changes only through a confirmed proposal, a newer proposal for the
// same text supersedes the pending one, gaps are appended and never rewritten.
//
// The read_context, log_vocabulary_gap, propose_* and confirm_* tools call it
// (internal/server/context.go) with the editor's workspace; it returns the
// contract's #Gap and #Proposal as Go values and coded errors (not_found for an
// unknown image or proposal). The files' formats are pinned by internal/edit's
// TestWorkspaceFileFormats.
package contextfile
