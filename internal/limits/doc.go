// Package limits bounds what one principal of the HTTP transport may ask for: calls
// per minute (a token bucket), calls at the same time, bytes per request, and each
// call's wall time (the tool's time limit from contracts/grants.cue). It knows no MCP
// and no HTTP: the server asks Acquire before a call, CheckInput with the request's
// size, and runs the handler under Start's context.
//
// Refusals are coded: limit_exceeded (recoverable) with retry_after_ms in details,
// how long until the same call would pass; a call stopped by its time limit is
// timeout, with what was done. The clock is injected, so tests never sleep.
//
// # The bucket
//
// Each principal has a bucket of burst calls that refills at requests_per_minute;
// a call takes one. An empty bucket's retry_after_ms is exact: the time until one
// call's worth has refilled. A call refused for concurrency takes nothing from the
// bucket. When all concurrent_calls are in flight, nobody knows when one will end;
// retry_after_ms is then an estimate: the principal's typical call duration (a moving
// average of its finished calls, 1 s before any) less how long its oldest call has
// run, at least 100 ms.
//
// A principal's state is dropped once its bucket is full and nothing is in flight
// (it is then the same as a new one), so memory follows active principals only.
package limits
