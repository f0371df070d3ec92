// Package workspace is where darkroom keeps everything of an editing session, and
// the one gate between a client's paths and the file system: its one job is to say
// which files a call may read and write, and to read and write them safely.
//
// # Layout
//
// Under Root (--workspace, $DARKROOM_WORKSPACE or Default):
//
//	images/                  the history store (internal/history)
//	sources/<image>/         the copies of ingested photos (StoreSource)
//	previews/<image>/        previews and comparisons
//	exports/<image>/         export_final's files
//	context/                 tastes, briefs, notes, gaps, proposals (internal/contextfile)
//	augment/<session_id>/    augment_image's sessions (internal/augmentation)
//	datasets/<output>/       augment_dataset's outputs without a write root
//
// Every file is written by one atomic and durable writer (WriteFile,
// WriteFileFrom: internal/fsx), and Open removes what a crash left half-written.
//
// # The boundary
//
// A client names files outside the workspace only under an allowed root: the
// --allow-root directories, the client's own roots (directories or single files,
// SetClientRoots) and, for augment_dataset's outputs, the --allow-write-root
// directories; bucket prefixes are allowed the same way. Roots are resolved once,
// when they are allowed, and compared exactly as spelt (case counts; a backslash is a
// character of a name on Unix). ReadAllowed refuses a URL, a NUL byte, any ".."
// component and a path outside every root before anything is opened, then opens the
// file once, beneath its root, and reads through that descriptor: on Linux openat2
// with RESOLVE_BENEATH (O_NOFOLLOW for a root that is one file) makes the kernel
// refuse a symbolic link out, even one swapped in while the call runs; elsewhere the
// opened file is checked to be the one under the root (openVerified). OpenAllowedDir
// gives a dataset's folder as an os.Root, which nothing inside can leave;
// DatasetOutput and DatasetStore say where a run may write.
//
// Refusals are coded errors (*darkroom.Error): permission_error for a path outside
// the roots, not_found, invalid_input for what is no regular file or no path at all,
// limit_exceeded over MaxSourceBytes. What a client sees names a path relative to
// the workspace or to its root's parent (Rel, Redact), never by the server's
// absolute path. The tests hold each piece to a table: path_test.go for the three
// entry points, boundary_test.go for containment, URLs, the open, the roots and the
// naming.
package workspace
