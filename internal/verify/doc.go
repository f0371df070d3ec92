// Package verify is verify_augmentation's domain: it turns an augmentation session
// (augment/<session_id>/, written by internal/augmentation) into the questions a
// client's model is asked through MCP sampling, one per variant and check (visual:
// are the applied transforms visible; label: is the subject still the same), and
// reads the answers back into a report it writes beside the variants
// (classification_report.json and visual_verification.md). Its one job is that
// round: it asks nothing itself (internal/server sends the sampling requests) and
// changes no variant.
package verify
