package history

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func entry(primitive string, v float64, mask string) Entry {
	e := Entry{Primitive: primitive, Layer: "L1", Values: map[string]float64{"v": v}, Strength: 1}
	if mask != "" {
		e.Mask = json.RawMessage(mask)
	}
	return e
}

func TestSet(t *testing.T) {
	tests := []struct {
		name     string
		start    []Entry
		set      Entry
		replaced bool
		want     []Entry
	}{
		{
			name: "append to empty",
			set:  entry("exposure", 0.7, ""),
			want: []Entry{entry("exposure", 0.7, "")},
		},
		{
			name:     "replace in place",
			start:    []Entry{entry("exposure", 0.7, ""), entry("contrast", 0.1, "")},
			set:      entry("exposure", -0.3, ""),
			replaced: true,
			want:     []Entry{entry("exposure", -0.3, ""), entry("contrast", 0.1, "")},
		},
		{
			name:  "same primitive, other mask appends",
			start: []Entry{entry("exposure", 0.7, "")},
			set:   entry("exposure", 0.2, `{"shape":{"kind":"gradient"}}`),
			want:  []Entry{entry("exposure", 0.7, ""), entry("exposure", 0.2, `{"shape":{"kind":"gradient"}}`)},
		},
		{
			name:     "same mask spelled differently replaces",
			start:    []Entry{entry("exposure", 0.2, `{"a":1,"b":2}`)},
			set:      entry("exposure", 0.4, ` {"b": 2.0, "a": 1} `),
			replaced: true,
			want:     []Entry{entry("exposure", 0.4, `{"a":1,"b":2}`)},
		},
		{
			name:     "null mask is no mask",
			start:    []Entry{entry("exposure", 0.2, "")},
			set:      entry("exposure", 0.4, `null`),
			replaced: true,
			want:     []Entry{entry("exposure", 0.4, "")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := State{Entries: tt.start}
			if got := st.Set(tt.set); got != tt.replaced {
				t.Errorf("Set replaced = %v, want %v", got, tt.replaced)
			}
			if diff := cmp.Diff(tt.want, st.Entries); diff != "" {
				t.Errorf("entries after Set (-want +got):\n%s", diff)
			}
			// Setting again changes nothing: applying is idempotent.
			before := mustHash(t, st)
			if !st.Set(tt.set) || mustHash(t, st) != before {
				t.Error("setting the same entry twice changed the state")
			}
		})
	}
}

func TestSetDoesNotAlias(t *testing.T) {
	e := entry("exposure", 0.7, `{"a":1}`)
	var st State
	st.Set(e)
	e.Values["v"] = 99
	e.Mask[1] = 'X'
	if diff := cmp.Diff([]Entry{entry("exposure", 0.7, `{"a":1}`)}, st.Entries); diff != "" {
		t.Errorf("state changed with the caller's entry (-want +got):\n%s", diff)
	}
}

func TestRemove(t *testing.T) {
	st := State{Entries: []Entry{entry("exposure", 1, ""), entry("contrast", 1, ""), entry("exposure", 1, `{"a":1}`)}}
	if n := st.Remove("exposure"); n != 2 {
		t.Errorf("Remove(exposure) = %d, want 2", n)
	}
	if n := st.Remove("vignette"); n != 0 {
		t.Errorf("Remove(vignette) = %d, want 0", n)
	}
	if diff := cmp.Diff([]Entry{entry("contrast", 1, "")}, st.Entries); diff != "" {
		t.Errorf("entries after Remove (-want +got):\n%s", diff)
	}
}

func TestClone(t *testing.T) {
	st := State{Entries: []Entry{entry("exposure", 1, `{"a":1}`)}, Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}
	c := st.Clone()
	c.Entries[0].Values["v"] = 2
	c.Entries[0].Mask[1] = 'X'
	c.Extra["k"][0] = '2'
	want := State{Entries: []Entry{entry("exposure", 1, `{"a":1}`)}, Extra: map[string]json.RawMessage{"k": json.RawMessage(`1`)}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("original changed through its clone (-want +got):\n%s", diff)
	}
}

func TestDiff(t *testing.T) {
	ex := entry("exposure", 0.7, "")
	exMasked := entry("exposure", 0.3, `{"a":1}`)
	co := entry("contrast", 0.1, "")
	sat := entry("saturation", 0.2, "")
	tests := []struct {
		name string
		a, b State
		want Difference
	}{
		{
			name: "equal",
			a:    State{Entries: []Entry{ex, co}},
			b:    State{Entries: []Entry{ex, co}},
			want: Difference{},
		},
		{
			name: "added, removed and changed",
			a:    State{Entries: []Entry{ex, co}},
			b:    State{Entries: []Entry{entry("exposure", 1.2, ""), sat}},
			want: Difference{
				Added:   []Entry{sat},
				Removed: []Entry{co},
				Changed: []Change{{Primitive: "exposure", Old: ex, New: entry("exposure", 1.2, "")}},
			},
		},
		{
			name: "mask is part of identity",
			a:    State{Entries: []Entry{ex}},
			b:    State{Entries: []Entry{ex, exMasked}},
			want: Difference{Added: []Entry{exMasked}},
		},
		{
			name: "masked entry changed",
			a:    State{Entries: []Entry{exMasked}},
			b:    State{Entries: []Entry{entry("exposure", 0.5, ` {"a": 1} `)}},
			want: Difference{Changed: []Change{{Primitive: "exposure", Mask: json.RawMessage(` {"a": 1} `), Old: exMasked, New: entry("exposure", 0.5, ` {"a": 1} `)}}},
		},
		{
			name: "strength and layer changes",
			a:    State{Entries: []Entry{{Primitive: "p", Layer: "L1", Strength: 1}}},
			b:    State{Entries: []Entry{{Primitive: "p", Layer: "L2", Strength: 0.5}}},
			want: Difference{Changed: []Change{{Primitive: "p", Old: Entry{Primitive: "p", Layer: "L1", Strength: 1}, New: Entry{Primitive: "p", Layer: "L2", Strength: 0.5}}}},
		},
		{
			name: "reordered only",
			a:    State{Entries: []Entry{ex, co}},
			b:    State{Entries: []Entry{co, ex}},
			want: Difference{Reordered: true},
		},
		{
			name: "extra",
			a:    State{Extra: map[string]json.RawMessage{"same": json.RawMessage(`{"a":1,"b":2}`), "gone": json.RawMessage(`1`), "moved": json.RawMessage(`1`)}},
			b:    State{Extra: map[string]json.RawMessage{"same": json.RawMessage(`{"b":2,"a":1}`), "new": json.RawMessage(`1`), "moved": json.RawMessage(`2`)}},
			want: Difference{Extra: []string{"gone", "moved", "new"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.a, tt.b)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			if got.Empty() != (tt.name == "equal") {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}
