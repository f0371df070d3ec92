package augment

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/darkroom-mcp/darkroom"
	"github.com/darkroom-mcp/darkroom/internal/resolve"
	"github.com/darkroom-mcp/darkroom/internal/vocab"
)

// Albumentations pipelines, in and out. An albumentations pipeline (what A.to_dict
// returns and A.save writes) is read by class name through the readings of
// vocabulary/albumentations/transforms.yaml (#AlbumentationsMap, read by
// contract.AlbumentationsMap): each class becomes
// vocabulary entries, each entry parameter read from the class's parameters with
// albumentations' meaning. Containers become step groups (Step.Group). What darkroom
// cannot do (a class without a reading, a parameter no reading reads, a value it
// does not honour) is returned as Skipped, never dropped silently. Export reads the
// same readings backwards into a pipeline A.from_dict loads.

// AlbuMap is #AlbumentationsMap.
type AlbuMap struct {
	Containers  map[string]string        `json:"containers"`
	Ignored     []string                 `json:"ignored"`
	Transforms  map[string][]AlbuReading `json:"transforms"`
	Unsupported map[string]string        `json:"unsupported"`
	// Positional names each class's parameters in its constructor's order, for a
	// call written with positional arguments (ReadCall).
	Positional map[string][]string `json:"positional"`
	// MaxGroupDepth is how deep groups nest, in a darkroom pipeline and in what an
	// albumentations pipeline becomes (#MaxGroupDepth).
	MaxGroupDepth int `json:"max_group_depth"`
	// Defaults are the operations' argument defaults: with them a size in pixels is
	// read, and written back, against the image the transforms before it leave
	// (PadIfNeeded after LongestMaxSize pads the resized image). Nil: every pixel
	// size is of the source image.
	Defaults resolve.Defaults `json:"-"`
	ignored  map[string]bool
}

// AlbuReading is one way to read a class (#AlbumentationsReading).
type AlbuReading struct {
	When     map[string][]any  `json:"when"`
	Steps    []AlbuStep        `json:"steps"`
	Accept   map[string][]any  `json:"accept"`
	Unread   map[string]string `json:"unread"`
	Same     map[string]string `json:"same"`
	Note     string            `json:"note"`
	WriteSet map[string]any    `json:"write_set"`
	Write    bool              `json:"write"`
}

// AlbuStep is one vocabulary entry a class becomes.
type AlbuStep struct {
	Entry  string               `json:"entry"`
	Params map[string]AlbuParam `json:"params"`
}

// AlbuParam reads one entry parameter: a constant, or from albumentations parameters.
type AlbuParam struct {
	Value *Value       `json:"value"`
	From  []AlbuSource `json:"from"`
}

// AlbuSource is one albumentations parameter and how its values convert.
type AlbuSource struct {
	Name     string  `json:"name"`
	NameHi   string  `json:"name_hi"`
	Default  any     `json:"default"`
	SkipZero bool    `json:"skip_zero"`
	Scalar   string  `json:"scalar"`
	Fn       string  `json:"fn"`
	Scale    float64 `json:"scale"`
	Offset   float64 `json:"offset"`
	Per      string  `json:"per"`
	// FractionOf is the side a value below 1 is a fraction of (pixels otherwise).
	FractionOf string  `json:"fraction_of"`
	Add        float64 `json:"add"`
	Dialect    string  `json:"dialect"`
	Integer    bool    `json:"integer"`
	Single     bool    `json:"single"`
	Reduce     string  `json:"reduce"`
}

// NewAlbuMap reads the albumentations readings as the contract checked them
// against #AlbumentationsMap (contract.AlbumentationsMap: JSON, defaults filled).
func NewAlbuMap(checked []byte) (*AlbuMap, error) {
	m := &AlbuMap{}
	if err := json.Unmarshal(checked, m); err != nil {
		return nil, darkroom.Wrap(darkroom.InternalError, err, "albumentations readings")
	}
	m.ignored = map[string]bool{}
	for _, k := range m.Ignored {
		m.ignored[k] = true
	}
	return m, nil
}

// IsAlbumentations reports whether a pipeline argument is an albumentations object
// (A.to_dict's {"__version__", "transform"} or a bare transform) rather than a list
// of darkroom steps.
func IsAlbumentations(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// Imported is an albumentations pipeline read for one image size.
type Imported struct {
	Pipeline Pipeline
	// Skipped names each class and parameter darkroom cannot do, with why.
	Skipped []Skipped
	// BoxFormat, KeypointFormat and MinVisibility come from bbox_params and
	// keypoint_params ("" and nil when absent).
	BoxFormat      string
	KeypointFormat string
	MinVisibility  *float64
	// SizeDependent says whether a value depends on the image's size (pixel
	// sizes), so a dataset reads the pipeline again for each size.
	SizeDependent bool
}

// importer carries the state of one Import.
type importer struct {
	m      *AlbuMap
	voc    *vocab.Vocabulary
	w, h   int
	v2     bool
	out    *Imported
	nextID int
	// where is inside(g) of the transform being read, added to its skips.
	where string
	// err is a limit a transform being read exceeded.
	err error
}

// Import reads an albumentations pipeline for an image of w x h pixels. A malformed
// object is invalid_input; a class or parameter darkroom cannot do is in Skipped.
func (m *AlbuMap) Import(raw []byte, voc *vocab.Vocabulary, w, h int) (*Imported, error) {
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "pipeline: not an albumentations object: %v", err)
	}
	im := &importer{m: m, voc: voc, w: w, h: h, out: &Imported{Pipeline: Pipeline{}}}
	root := top
	if t, ok := top["transform"]; ok {
		root, ok = t.(map[string]any)
		if !ok {
			return nil, darkroom.Errorf(darkroom.InvalidInput, "pipeline.transform: not an object")
		}
		if v, ok := top["__version__"].(string); ok {
			major, _, _ := strings.Cut(v, ".")
			n, _ := strconv.Atoi(major)
			im.v2 = n >= 2
		}
	}
	cls := className(root)
	if cls == "" {
		return nil, darkroom.Errorf(darkroom.InvalidInput, "pipeline.transform: no __class_fullname__")
	}
	if m.Containers[cls] == "compose" {
		im.readParams(root)
		if err := im.sequence(children(root), "pipeline.transform", nil, false); err != nil {
			return nil, err
		}
		if p := prob(root, 1); p < 1 {
			im.wrapP(0, p)
		}
	} else if err := im.sequence([]any{root}, "pipeline", nil, false); err != nil {
		return nil, err
	}
	for _, s := range im.out.Pipeline {
		if d := len(s.chain()); m.MaxGroupDepth > 0 && d > m.MaxGroupDepth {
			return nil, darkroom.Errorf(darkroom.LimitExceeded, "pipeline.transform: a Compose with p %v around containers makes groups %d deep; darkroom's groups nest at most %d deep", prob(root, 1), d, m.MaxGroupDepth)
		}
	}
	if len(im.out.Pipeline) > 32 {
		return nil, darkroom.Errorf(darkroom.LimitExceeded, "pipeline: the albumentations pipeline makes %d steps, more than 32", len(im.out.Pipeline))
	}
	if len(im.out.Pipeline) == 0 {
		return nil, &darkroom.Error{Code: darkroom.InvalidInput, Message: "pipeline: no transform of the albumentations pipeline has a darkroom counterpart: " + skippedList(im.out.Skipped),
			Details: map[string]any{"skipped": im.out.Skipped}}
	}
	return im.out, nil
}

func skippedList(s []Skipped) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.Entry + " (" + x.Reason + ")"
	}
	return strings.Join(parts, "; ")
}

// readParams reads bbox_params and keypoint_params of a Compose.
func (im *importer) readParams(root map[string]any) {
	if bp, ok := root["bbox_params"].(map[string]any); ok {
		if f, ok := bp["format"].(string); ok {
			im.out.BoxFormat = f
		}
		if mv, ok := bp["min_visibility"].(float64); ok {
			im.out.MinVisibility = &mv
		}
		for _, k := range []string{"min_area", "min_width", "min_height"} {
			if v, ok := bp[k].(float64); ok && v != 0 {
				im.skip("bbox_params", fmt.Sprintf("%s %v: darkroom drops boxes by min_visibility only", k, v))
			}
		}
		if v, ok := bp["check_each_transform"].(bool); ok && !v {
			im.skip("bbox_params", "check_each_transform false: darkroom clips and filters boxes after every step")
		}
	}
	if kp, ok := root["keypoint_params"].(map[string]any); ok {
		if f, ok := kp["format"].(string); ok {
			im.out.KeypointFormat = f
			if f != "xy" {
				im.skip("keypoint_params", fmt.Sprintf("format %s: darkroom moves points as xy; angles and scales are not carried", f))
			}
		}
		if v, ok := kp["remove_invisible"].(bool); ok && !v {
			im.skip("keypoint_params", "remove_invisible false: darkroom drops the points that leave the frame")
		}
	}
}

func (im *importer) skip(name, reason string) {
	im.out.Skipped = append(im.out.Skipped, Skipped{Entry: name, Reason: reason + im.where, Code: darkroom.InvalidInput})
}

// inside says where a transform of group g sits, for a skipped transform's reason:
// "" at the top level, " (in OneOf in SomeOf)" inside nested containers.
func inside(g *Group) string {
	if g == nil {
		return ""
	}
	var names []string
	for ; g != nil; g = g.Parent {
		names = append(names, groupName[g.Kind])
	}
	return " (in " + strings.Join(names, " in ") + ")"
}

// wrapP puts the steps from before on, as they are, into one sequential group of
// probability p: a top-level Compose with p below 1.
func (im *importer) wrapP(before int, p float64) {
	g := &Group{ID: im.newID(), Kind: "sequential", P: p, N: 1, Replace: true}
	for i := before; i < len(im.out.Pipeline); i++ {
		s := &im.out.Pipeline[i]
		if s.Group == nil {
			s.Group = g
			continue
		}
		root := s.Group
		for root.Parent != nil && root.Parent != g {
			root = root.Parent
		}
		if root != g {
			root.Parent = g
		}
	}
}

func (im *importer) newID() int {
	im.nextID++
	return im.nextID - 1
}

func className(t map[string]any) string {
	s, _ := t["__class_fullname__"].(string)
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func children(t map[string]any) []any {
	kids, _ := t["transforms"].([]any)
	return kids
}

// prob is a transform's p, 1 when always_apply.
func prob(t map[string]any, def float64) float64 {
	if aa, ok := t["always_apply"].(bool); ok && aa {
		return 1
	}
	if p, ok := t["p"].(float64); ok {
		return p
	}
	return def
}

// defaultP is albumentations' default p of a container kind.
func defaultP(kind string) float64 {
	switch kind {
	case "one_of", "one_or_other", "sequential":
		return 0.5
	}
	return 1
}

// sequence reads transforms run one after the other (a Compose's, a Sequential's)
// as members of parent (nil at the top level). forceFirst says whether the first is
// called with force_apply: albumentations 1.x's Sequential passes its own on to its
// first transform.
func (im *importer) sequence(kids []any, where string, parent *Group, forceFirst bool) error {
	for i, k := range kids {
		if _, err := im.member(k, fmt.Sprintf("%s.transforms[%d]", where, i), parent, false, forceFirst && i == 0); err != nil {
			return err
		}
	}
	return nil
}

// groupName is the albumentations container a group came from, for messages.
var groupName = map[string]string{"one_of": "OneOf", "some_of": "SomeOf", "one_or_other": "OneOrOther", "sequential": "Sequential"}

// member reads one transform as a member of parent and reports whether it made a
// step. picked says its container chooses it and calls it with force_apply (a
// member of a OneOf, SomeOf or OneOrOther: its p is its weight there); forced says
// it is called with force_apply although nothing chose it (the first transform of
// a picked 1.x Sequential), so it runs whatever its p. Containers nested deeper
// than MaxGroupDepth are limit_exceeded.
func (im *importer) member(k any, at string, parent *Group, picked, forced bool) (bool, error) {
	t, ok := k.(map[string]any)
	if !ok {
		im.skip(at, "not a transform object")
		return false, nil
	}
	cls := className(t)
	kind, isContainer := im.m.Containers[cls]
	if !isContainer {
		made := im.leaf(t, cls, parent, forced && !picked, at)
		return made, im.err
	}
	p := prob(t, defaultP(kind))
	// What the container is forced to, and whether its p is then only a weight.
	switch kind {
	case "compose", "one_of", "some_of":
		if forced && !picked {
			p = 1
		}
	case "sequential":
		if !im.v2 && !picked {
			p = 1 // albumentations 1.x runs a Sequential whatever its p
		}
	}
	// A Compose or Sequential that runs whenever it is reached is its transforms.
	if (kind == "compose" || kind == "sequential") && p == 1 && !picked {
		before := len(im.out.Pipeline)
		err := im.sequence(children(t), at, parent, kind == "sequential" && !im.v2 && forced)
		return len(im.out.Pipeline) > before, err
	}
	if kind == "compose" {
		kind = "sequential"
	}
	g := &Group{ID: im.newID(), Kind: kind, P: p, N: 1, Replace: true, Parent: parent}
	if d := len(Step{Group: g}.chain()); im.m.MaxGroupDepth > 0 && d > im.m.MaxGroupDepth {
		return false, darkroom.Errorf(darkroom.LimitExceeded, "%s: %s nests containers %d deep; darkroom's groups nest at most %d deep", at, cls, d, im.m.MaxGroupDepth)
	}
	if kind == "some_of" {
		if n, ok := t["n"].(float64); ok {
			g.N = int(n)
		}
		if r, ok := t["replace"].(bool); ok {
			g.Replace = r
		}
	}
	before := len(im.out.Pipeline)
	if kind == "sequential" {
		// A picked 1.x Sequential hands force_apply to its first transform.
		err := im.sequence(children(t), at, g, !im.v2 && cls == "Sequential" && (picked || forced))
		return len(im.out.Pipeline) > before, err
	}
	members := 0
	for j, c := range children(t) {
		made, err := im.member(c, fmt.Sprintf("%s.transforms[%d]", at, j), g, true, false)
		if err != nil {
			return false, err
		}
		if made {
			members++
		}
	}
	if kind == "one_or_other" && members != 2 && members > 0 {
		im.skip(cls, fmt.Sprintf("%d of its transforms have a darkroom counterpart: the ones that do run as OneOf", members))
		g.Kind = "one_of"
	}
	return members > 0, nil
}

// leaf reads one transform into steps, in group g when not nil; it reports whether a
// step was made.
func (im *importer) leaf(t map[string]any, cls string, g *Group, forced bool, at string) bool {
	im.where = inside(g)
	defer func() { im.where = "" }()
	if why, ok := im.m.Unsupported[cls]; ok {
		im.skip(cls, why)
		return false
	}
	readings, ok := im.m.Transforms[cls]
	if !ok {
		im.skip(cls, "darkroom has no counterpart for this albumentations transform")
		return false
	}
	var r *AlbuReading
	for i := range readings {
		if readings[i].matches(t) {
			r = &readings[i]
			break
		}
	}
	if r == nil {
		im.skip(cls, "no reading matches its parameters")
		return false
	}
	p := prob(t, 0.5)
	if forced {
		p = 1
	}
	read := map[string]bool{}
	var steps []Step
	for _, rs := range r.Steps {
		e, ok := im.voc.Entry(rs.Entry)
		if !ok {
			im.skip(cls, fmt.Sprintf("its entry %s is not in the vocabulary", rs.Entry))
			return false
		}
		st := Step{Entry: e.Name, P: p, Params: map[string]Value{}, Group: g}
		for _, name := range slices.Sorted(maps.Keys(rs.Params)) {
			ap := rs.Params[name]
			v, ok, err := im.value(t, ap, read)
			if err != nil {
				im.skip(cls, err.Error())
				return false
			}
			if !ok {
				continue
			}
			par := e.Parameters[name]
			if par == nil {
				im.skip(cls, fmt.Sprintf("reading names %s.%s, which the entry does not have", e.Name, name))
				return false
			}
			if par.Type == "integer" {
				v = Value{math.Round(v.Lo), math.Round(v.Hi)}
			}
			if v.Lo < par.Min-1e-9 || v.Hi > par.Max+1e-9 {
				src := ""
				if len(ap.From) > 0 {
					src = " (from " + ap.From[0].Name + ")"
				}
				im.skip(cls, fmt.Sprintf("%s %s%s is outside darkroom's %s range [%v, %v] at %dx%d", name, fmtValue(v), src, e.Name, par.Min, par.Max, im.w, im.h))
				return false
			}
			st.Params[name] = v
		}
		if len(st.Params) == 0 {
			st.Params = nil
		}
		steps = append(steps, st)
	}
	if len(steps) > 1 {
		// Several steps are one member of g: a sequential group inside it.
		sg := &Group{ID: im.newID(), Kind: "sequential", P: p, N: 1, Replace: true, Parent: g}
		if d := len(Step{Group: sg}.chain()); im.m.MaxGroupDepth > 0 && d > im.m.MaxGroupDepth {
			im.err = darkroom.Errorf(darkroom.LimitExceeded, "%s: %s becomes %d steps, a group %d deep; darkroom's groups nest at most %d deep", at, cls, len(steps), d, im.m.MaxGroupDepth)
			return false
		}
		for i := range steps {
			steps[i].P, steps[i].Group = 1, sg
		}
	}
	for k := range r.When {
		read[k] = true
	}
	// Every other parameter: ignored, accepted at darkroom's value, or reported.
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if im.m.ignored[k] || read[k] {
			continue
		}
		val := t[k]
		acc, isAcc := r.Accept[k]
		if isAcc && accepted(acc, val) {
			continue
		}
		if why, ok := r.Unread[k]; ok {
			// A parameter at zero asks for nothing (a shift limit of 0), nor one
			// equal to the parameter darkroom reads for it (a square hole's width).
			other, same := r.Same[k]
			same = same && reflect.DeepEqual(normal(val), normal(t[other]))
			if val != nil && !isZero(val) && !same {
				im.skip(cls, fmt.Sprintf("parameter %s=%s: %s", k, fmtAny(val), why))
			}
			continue
		}
		if isAcc {
			im.skip(cls, fmt.Sprintf("parameter %s=%s: darkroom does only %s", k, fmtAny(val), fmtAny(acc[0])))
			continue
		}
		if val == nil {
			continue
		}
		im.skip(cls, fmt.Sprintf("parameter %s=%s: darkroom does not read it", k, fmtAny(val)))
	}
	im.out.Pipeline = append(im.out.Pipeline, steps...)
	if g == nil && p == 1 {
		im.w, im.h = im.m.frame(im.voc, steps, im.w, im.h)
	}
	return true
}

// frame is the size a w x h image has after steps that always run (resolve.SizeRange;
// a drawn size leaves the size as it was, and so does a step it cannot size).
func (m *AlbuMap) frame(voc *vocab.Vocabulary, steps []Step, w, h int) (int, int) {
	if m.Defaults == nil {
		return w, h
	}
	for _, st := range steps {
		e, ok := voc.Entry(st.Entry)
		if !ok {
			continue
		}
		ranges := map[string][2]float64{}
		for k, v := range st.Params {
			ranges[k] = [2]float64{v.Lo, v.Hi}
		}
		if nw, nh, ok := resolve.SizeRange(e, nil, ranges, m.Defaults, w, h); ok {
			w, h = nw, nh
		}
	}
	return w, h
}

// isZero reports whether v is 0 or a list of zeros.
func isZero(v any) bool {
	switch x := v.(type) {
	case float64:
		return x == 0
	case []any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return len(x) > 0
	case map[string]any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return len(x) > 0
	}
	return false
}

func (r *AlbuReading) matches(t map[string]any) bool {
	for k, vals := range r.When {
		if !accepted(vals, t[k]) {
			return false
		}
	}
	return true
}

// accepted reports whether v is one of vals (numbers compared as numbers, lists and
// objects deeply; a tuple and a list are the same in JSON).
func accepted(vals []any, v any) bool {
	for _, a := range vals {
		if reflect.DeepEqual(normal(a), normal(v)) {
			return true
		}
	}
	return false
}

func normal(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normal(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normal(e)
		}
		return out
	}
	return v
}

func fmtAny(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func fmtValue(v Value) string {
	if v.Lo == v.Hi {
		return strconv.FormatFloat(v.Lo, 'g', 6, 64)
	}
	return fmt.Sprintf("[%s, %s]", strconv.FormatFloat(v.Lo, 'g', 6, 64), strconv.FormatFloat(v.Hi, 'g', 6, 64))
}

// lookup follows a path ("scale.x", "grid.0") into a transform's parameters.
func lookup(t map[string]any, path string) (any, bool) {
	var cur any = t
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, cur != nil
}

// value reads one entry parameter; ok is false when nothing sets it (the entry's
// default stands). read collects the albumentations parameters it looked at.
func (im *importer) value(t map[string]any, ap AlbuParam, read map[string]bool) (Value, bool, error) {
	if ap.Value != nil {
		return *ap.Value, true, nil
	}
	for _, src := range ap.From {
		root, _, _ := strings.Cut(src.Name, ".")
		read[root] = true
		if src.NameHi != "" {
			read[src.NameHi] = true
		}
	}
	for _, src := range ap.From {
		raw, ok := lookup(t, src.Name)
		if !ok {
			continue
		}
		if src.NameHi != "" {
			hi, ok := lookup(t, src.NameHi)
			if !ok {
				hi = raw
			}
			raw = []any{raw, hi}
		}
		lo, hi, err := rangeOf(raw, src.Scalar)
		if err != nil {
			return Value{}, false, fmt.Errorf("parameter %s: %v", src.Name, err)
		}
		if src.SkipZero && lo == 0 && hi == 0 {
			continue
		}
		if err := im.sibling(t, src.Name, raw); err != nil {
			return Value{}, false, err
		}
		v, err := im.convert(src, lo, hi)
		return reduce(src, v), err == nil, err
	}
	if len(ap.From) == 0 || ap.From[0].Default == nil {
		return Value{}, false, nil
	}
	src := ap.From[0]
	lo, hi, err := rangeOf(src.Default, src.Scalar)
	if err != nil {
		return Value{}, false, err
	}
	v, err := im.convert(src, lo, hi)
	return reduce(src, v), err == nil, err
}

// reduce makes a range read the one value src.Reduce asks for: its middle or its
// half width.
func reduce(src AlbuSource, v Value) Value {
	switch src.Reduce {
	case "middle":
		return Fixed(round9((v.Lo + v.Hi) / 2))
	case "half_width":
		return Fixed(round9((v.Hi - v.Lo) / 2))
	}
	return v
}

// sibling refuses a path ending in .x whose .y differs: darkroom has one value.
func (im *importer) sibling(t map[string]any, name string, raw any) error {
	base, ok := strings.CutSuffix(name, ".x")
	if !ok {
		return nil
	}
	y, ok := lookup(t, base+".y")
	if !ok || reflect.DeepEqual(normal(y), normal(raw)) {
		return nil
	}
	return fmt.Errorf("parameter %s: x %s and y %s differ; darkroom takes one value for both", base, fmtAny(raw), fmtAny(y))
}

// rangeOf reads a number (by the scalar rule) or a two-number list.
func rangeOf(raw any, scalar string) (lo, hi float64, err error) {
	switch x := raw.(type) {
	case float64:
		switch scalar {
		case "symmetric":
			return -math.Abs(x), math.Abs(x), nil
		case "from_zero":
			return min(0, x), max(0, x), nil
		case "one_to":
			return min(1, x), max(1, x), nil
		case "around_one":
			return max(0, 1-math.Abs(x)), 1 + math.Abs(x), nil
		case "kernel":
			return min(3, x), max(3, x), nil
		}
		return x, x, nil
	case int:
		return rangeOf(float64(x), scalar)
	case bool:
		if scalar == "flag" {
			if x {
				return 1, 1, nil
			}
			return 0, 0, nil
		}
	case []any:
		if scalar == "grey" && len(x) == 3 {
			// A colour (PadIfNeeded's value=(114, 114, 114)): one grey when its
			// channels agree.
			a, ok1 := x[0].(float64)
			b, ok2 := x[1].(float64)
			c, ok3 := x[2].(float64)
			if ok1 && ok2 && ok3 && a == b && b == c {
				return a, a, nil
			}
			return 0, 0, fmt.Errorf("%s is not a grey (darkroom fills with one level for all channels)", fmtAny(raw))
		}
		if len(x) == 2 {
			a, ok1 := x[0].(float64)
			b, ok2 := x[1].(float64)
			if ok1 && ok2 {
				return min(a, b), max(a, b), nil
			}
		}
	}
	if scalar == "flag" {
		return 0, 0, fmt.Errorf("%s is not true or false", fmtAny(raw))
	}
	return 0, 0, fmt.Errorf("%s is not a number or a pair of numbers", fmtAny(raw))
}

func (im *importer) per(src AlbuSource) float64 {
	switch src.Per {
	case "long_edge":
		return float64(max(im.w, im.h))
	case "short_edge":
		return float64(min(im.w, im.h))
	case "width":
		return float64(im.w)
	case "height":
		return float64(im.h)
	}
	return 1
}

func (im *importer) convert(src AlbuSource, lo, hi float64) (Value, error) {
	if src.Per != "none" && src.Per != "" {
		im.out.SizeDependent = true
	}
	side := 1.0
	if src.FractionOf != "none" && src.FractionOf != "" && lo > 0 && (hi < 1 || hi == 1 && lo < 1) {
		side = im.per(AlbuSource{Per: src.FractionOf})
	}
	one := func(v float64) (float64, error) {
		v *= side
		switch src.Fn {
		case "sqrt":
			if v < 0 {
				return 0, fmt.Errorf("parameter %s: %v is negative", src.Name, v)
			}
			v = math.Sqrt(v)
		case "log2":
			if v <= 0 {
				return 0, fmt.Errorf("parameter %s: %v is not positive", src.Name, v)
			}
			v = math.Log2(v)
		case "log2_1p":
			if v <= -1 {
				return 0, fmt.Errorf("parameter %s: %v is not above -1", src.Name, v)
			}
			v = math.Log2(1 + v)
		}
		return round9((v*src.Scale+src.Offset)/im.per(src) + src.Add), nil
	}
	a, err := one(lo)
	if err != nil {
		return Value{}, err
	}
	b, err := one(hi)
	if err != nil {
		return Value{}, err
	}
	return Value{min(a, b), max(a, b)}, nil
}

// round9 drops the float noise of a conversion (0.1 * 2 + ...), so a value reads back
// the way it was written.
func round9(v float64) float64 { return math.Round(v*1e9) / 1e9 }
