//go:build !linux

package dataset

import "os"

// canSyncFS: no one call flushes a file system here, so behind fsyncs each file.
const canSyncFS = false

func syncFS(out *os.Root) error { panic("dataset: no syncfs on this system") }
