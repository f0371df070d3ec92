package server

import "context"

// ProgressFunc is told a running tool call's progress: the same done, total and
// message its notifications/progress carry over MCP.
type ProgressFunc func(done, total float64, message string)

type progressSinkKey struct{}

// WithProgress returns ctx carrying f, which Invoke's tool calls under it tell their
// progress to, as they send it to an MCP client that asked for it: the CLI draws
// its progress bar from it.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressSinkKey{}, f)
}

// tellProgress passes a call's progress to the ProgressFunc its context carries.
func tellProgress(ctx context.Context, done, total float64, message string) {
	if f, _ := ctx.Value(progressSinkKey{}).(ProgressFunc); f != nil {
		f(done, total, message)
	}
}
