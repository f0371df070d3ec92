package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"sorted keys", `{"b":1,"a":2,"aa":3}`, `{"a":2,"aa":3,"b":1}`},
		{"whitespace", " {\n \"a\" : [ 1 , 2 ] }\t", `{"a":[1,2]}`},
		{"integral float", `1.0`, `1`},
		{"exponent written out", `1e3`, `1000`},
		{"large uses exponent", `1e21`, `1e+21`},
		{"below large limit", `1e20`, `100000000000000000000`},
		{"small uses exponent", `0.0000001`, `1e-7`},
		{"small limit", `0.000001`, `0.000001`},
		{"negative zero", `-0.0`, `0`},
		{"negative", `-2.50`, `-2.5`},
		{"shortest round trip", `0.1000000000000000055511151231257827`, `0.1`},
		{"beyond float precision", `123456789012345678901234567890`, `1.2345678901234568e+29`},
		{"escapes", `"a\u0001\"\\\/\t<>&\u2028é"`, "\"a\\u0001\\\"\\\\/\\t<>&\u2028é\""},
		{"utf-16 key order", `{"\ufb01":2,"\ud83d\ude00":1}`, "{\"\U0001F600\":1,\"\uFB01\":2}"},
		{"literals", `[true, false, null]`, `[true,false,null]`},
		{"nested", `{"z":{"y":[{"b":1,"a":0}]},"a":""}`, `{"a":"","z":{"y":[{"a":0,"b":1}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonicalJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("canonicalJSON(%s) (-want +got):\n%s", tt.in, diff)
			}
			again, err := canonicalJSON(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("canonical form is not a fixed point: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalJSONErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `1 2`, `1e400`, `{"a":1}x`, `[1,]`} {
		if got, err := canonicalJSON([]byte(in)); err == nil {
			t.Errorf("canonicalJSON(%q) = %s, want an error", in, got)
		}
	}
}

// TestHashFormat pins the encoding a hash is taken of: changing it would orphan every
// stored snapshot's name.
func TestHashFormat(t *testing.T) {
	st := State{Entries: []Entry{{
		Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": 0.7, "a": -0.0},
		Mask: json.RawMessage(`{ "shape": {"kind": "ellipse"}, "invert": false }`), Strength: 1,
	}}}
	want := `{"entries":[{"layer":"L1","mask":{"invert":false,"shape":{"kind":"ellipse"}},"primitive":"exposure","strength":1,"values":{"a":0,"ev":0.7}}]}`
	canon, hash, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(canon)); diff != "" {
		t.Errorf("canonical state (-want +got):\n%s", diff)
	}
	sum := sha256.Sum256([]byte(want))
	if want := hex.EncodeToString(sum[:]); hash != want {
		t.Errorf("hash = %s, want %s", hash, want)
	}
}

func TestHashEquality(t *testing.T) {
	base := State{Entries: []Entry{
		{Primitive: "exposure", Layer: "L1", Values: map[string]float64{"ev": 0.7}, Strength: 1},
		{Primitive: "saturation", Layer: "L2", Values: map[string]float64{"amount": 0.2}, Mask: json.RawMessage(`{"a":1,"b":[1,2]}`), Strength: 0.5},
	}}
	tests := []struct {
		name  string
		edit  func(*State)
		equal bool
	}{
		{"mask spelled differently", func(s *State) { s.Entries[1].Mask = json.RawMessage(" {\"b\":[1.0, 2e0],\n\"a\":1} ") }, true},
		{"null mask is no mask", func(s *State) { s.Entries[0].Mask = json.RawMessage("null") }, true},
		{"empty extra", func(s *State) { s.Extra = map[string]json.RawMessage{} }, true},
		{"extra spelled differently", func(s *State) { s.Extra = map[string]json.RawMessage{"l1": json.RawMessage(`{"y":1, "x":2}`)} }, false},
		{"value changed", func(s *State) { s.Entries[0].Values["ev"] = 0.71 }, false},
		{"strength changed", func(s *State) { s.Entries[1].Strength = 0.6 }, false},
		{"mask changed", func(s *State) { s.Entries[1].Mask = json.RawMessage(`{"a":2,"b":[1,2]}`) }, false},
		{"order changed", func(s *State) { s.Entries[0], s.Entries[1] = s.Entries[1], s.Entries[0] }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := base.Clone()
			b := base.Clone()
			tt.edit(&b)
			ha, hb := mustHash(t, a), mustHash(t, b)
			if (ha == hb) != tt.equal {
				t.Errorf("hashes equal = %v, want %v", ha == hb, tt.equal)
			}
		})
	}
	// Nil and empty lists and maps are the same: JSON would otherwise say null for one.
	if mustHash(t, State{}) != mustHash(t, State{Entries: []Entry{}}) {
		t.Error("nil and empty entries hash differently")
	}
	if mustHash(t, State{Entries: []Entry{{Primitive: "p"}}}) != mustHash(t, State{Entries: []Entry{{Primitive: "p", Values: map[string]float64{}}}}) {
		t.Error("nil and empty values hash differently")
	}
}

func TestEncodeStateErrors(t *testing.T) {
	one := func(e Entry) State { return State{Entries: []Entry{e}} }
	nan, inf := math.NaN(), math.Inf(1)
	many := State{}
	for i := range MaxEntries + 1 {
		many.Entries = append(many.Entries, Entry{Primitive: "p" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Strength: 1})
	}
	manyValues := map[string]float64{}
	for i := range MaxValues + 1 {
		manyValues[string(rune('a'+i%26))+string(rune('a'+i/26))] = 1
	}
	bigMask := json.RawMessage(`{"x":"` + strings.Repeat("a", MaxStateBytes) + `"}`)
	tests := []struct {
		name  string
		st    State
		code  string
		field string
	}{
		{"empty primitive", one(Entry{Strength: 1}), darkroom.InvalidInput, "entries[0].primitive"},
		{"NaN value", one(Entry{Primitive: "p", Values: map[string]float64{"v": nan}}), darkroom.InvalidInput, "entries[0].values.v"},
		{"infinite strength", one(Entry{Primitive: "p", Strength: inf}), darkroom.InvalidInput, "entries[0].strength"},
		{"mask is an array", one(Entry{Primitive: "p", Mask: json.RawMessage(`[1]`)}), darkroom.InvalidInput, "entries[0].mask"},
		{"mask is not JSON", one(Entry{Primitive: "p", Mask: json.RawMessage(`{"a":`)}), darkroom.InvalidInput, "entries[0].mask"},
		{"empty value name", one(Entry{Primitive: "p", Values: map[string]float64{"": 1}}), darkroom.InvalidInput, "entries[0].values"},
		{"duplicate entry", State{Entries: []Entry{
			{Primitive: "p", Mask: json.RawMessage(`{"a":1,"b":2}`)},
			{Primitive: "p", Mask: json.RawMessage(`{"b":2,"a":1}`)},
		}}, darkroom.InvalidInput, "entries[1]"},
		{"extra not JSON", State{Extra: map[string]json.RawMessage{"k": json.RawMessage(`nope`)}}, darkroom.InvalidInput, "extra.k"},
		{"too many entries", many, darkroom.LimitExceeded, "entries"},
		{"too many values", one(Entry{Primitive: "p", Values: manyValues}), darkroom.LimitExceeded, "entries[0].values"},
		{"state too large", one(Entry{Primitive: "p", Mask: bigMask}), darkroom.LimitExceeded, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Hash(tt.st)
			if got := codeOf(err); got != tt.code {
				t.Fatalf("Hash: code %q (%v), want %q", got, err, tt.code)
			}
			var de *darkroom.Error
			if tt.field != "" && (!errors.As(err, &de) || de.Details["field"] != tt.field) {
				t.Errorf("Hash: error %v has details %v, want field %q", err, de.Details, tt.field)
			}
		})
	}
}
