package contract

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCheckIsNotSerialisedByTheContractLock: while the contract's own CUE context is
// busy (Contract.mu held, as by another call's check), a check borrows an evaluator
// of its own and answers exactly as the contract's own context does: calls are not
// queued behind one process-wide lock.
func TestCheckIsNotSerialisedByTheContractLock(t *testing.T) {
	c := loadTestContract(t)
	tool, ok := c.Tool("apply_primitive")
	if !ok {
		t.Fatal("no apply_primitive")
	}
	raw := json.RawMessage(`{"image_id": "cup", "primitive_name": "exposure", "value": 0.5, "mask_spec": {"name": "sky_gradient"}}`)
	want, err := tool.Check(raw)
	if err != nil {
		t.Fatal(err)
	}
	bad := json.RawMessage(`{"image_id": "cup", "primitive_name": "exposure", "strength": 2}`)
	_, wantErr := tool.Check(bad)
	if wantErr == nil {
		t.Fatal("strength 2 accepted")
	}

	c.mu.Lock()
	type result struct {
		got    map[string]any
		err    error
		badErr error
	}
	done := make(chan result, 1)
	go func() {
		got, err := tool.Check(raw)
		_, badErr := tool.Check(bad)
		done <- result{got, err, badErr}
	}()
	var r result
	select {
	case r = <-done:
		c.mu.Unlock()
	case <-time.After(2 * time.Minute):
		c.mu.Unlock()
		t.Fatal("a check waited for Contract.mu")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if d := cmp.Diff(want, r.got); d != "" {
		t.Errorf("a pooled evaluator's check differs from the contract's own (-own +pooled):\n%s", d)
	}
	if r.badErr == nil || r.badErr.Error() != wantErr.Error() {
		t.Errorf("pooled refusal %v, want %v", r.badErr, wantErr)
	}
}
