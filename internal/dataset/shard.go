package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	darkroom "github.com/darkroom-mcp/darkroom"
)

// Shard is a share of a dataset: the images whose ShardOf is Index, of Count shards.
// The zero Shard (and Count 1) is the whole dataset.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/N" (0 <= i < N), as --shard takes it; the index is 0-based like
// a Kubernetes JOB_COMPLETION_INDEX.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard: %q is not i/N", s)
	}
	sh := Shard{i, n}
	if n < 1 {
		return Shard{}, darkroom.Errorf(darkroom.InvalidInput, "shard: %q has no shards", s)
	}
	return sh, sh.check()
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

func (s Shard) check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return darkroom.Errorf(darkroom.InvalidInput, "shard: %d/%d is not i/N with 0 <= i < N", s.Index, s.Count)
	}
	return nil
}

// Has reports whether the image at rel belongs to the shard.
func (s Shard) Has(rel string) bool {
	return s.Count <= 1 || ShardOf(rel, s.Count) == s.Index
}

// ShardOf is the shard of n that the image at rel (slash-separated, relative to the
// input folder) belongs to: the first 8 bytes, big endian, of
// SHA-256("darkroom-shard-v1\x00" + rel), modulo n. It does not depend on the seed,
// so an image stays in its shard across runs.
func ShardOf(rel string, n int) int {
	h := sha256.Sum256([]byte("darkroom-shard-v1\x00" + rel))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
}

var shardManifest = regexp.MustCompile(`^manifest\.shard-(\d+)-of-(\d+)\.jsonl$`)

// Merge joins the manifests of all shards of one run (paths relative to out, named
// manifest.shard-<i>-of-<n>.jsonl as the shard runs wrote them, one per shard) into
// what an unsharded run writes: manifest.jsonl and, for a COCO dataset, its COCO
// file. The variants must already be in out (shards writing to one shared folder,
// or their folders copied together); Merge checks that each record's files are
// there with their size.
//
// Returns invalid_input when the manifests are not exactly the shards 0..n-1 of one
// n, when a record is in the wrong shard or twice, and not_found when a file a
// record names is missing or has another size.
func Merge(out *os.Root, manifests ...string) error {
	return MergeIn(Local(out), manifests...)
}

// MergeIn is Merge in a Store (a folder or a bucket). With no manifests named it
// merges the shard manifests it finds at the top of the output (Store.Manifests).
func MergeIn(out Store, manifests ...string) error {
	if len(manifests) == 0 {
		found, err := out.Manifests()
		if err != nil {
			return darkroom.Wrap(darkroom.Unavailable, err, "list the shard manifests")
		}
		manifests = found
	}
	infoData, err := out.ReadFile(InfoFile)
	if err != nil {
		return darkroom.Wrap(darkroom.NotFound, err, "read %s", InfoFile)
	}
	var info Info
	if err := json.Unmarshal(infoData, &info); err != nil {
		return darkroom.Wrap(darkroom.InvalidInput, err, "%s is not JSON", InfoFile)
	}
	count := 0
	seen := map[int]string{}
	var recs []Record
	keys := map[recordKey]bool{}
	for _, name := range manifests {
		m := shardManifest.FindStringSubmatch(path.Base(name))
		if m == nil {
			return darkroom.Errorf(darkroom.InvalidInput, "%s is not named manifest.shard-<i>-of-<n>.jsonl", path.Base(name))
		}
		i, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if count == 0 {
			count = n
		}
		if n != count || i >= n {
			return darkroom.Errorf(darkroom.InvalidInput, "%s is not a shard of %d", path.Base(name), count)
		}
		if prev, dup := seen[i]; dup {
			return darkroom.Errorf(darkroom.InvalidInput, "shard %d given twice (%s, %s)", i, prev, path.Base(name))
		}
		seen[i] = path.Base(name)
		f, err := out.Open(name)
		if err != nil {
			return darkroom.Wrap(darkroom.NotFound, err, "open %s", path.Base(name))
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		line := 0
		for sc.Scan() {
			line++
			var rec Record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Source == "" {
				f.Close()
				return darkroom.Errorf(darkroom.InvalidInput, "%s line %d is not a manifest record", path.Base(name), line)
			}
			if ShardOf(rec.Source, n) != i {
				f.Close()
				return darkroom.Errorf(darkroom.InvalidInput, "%s line %d: %s belongs to shard %d", path.Base(name), line, rec.Source, ShardOf(rec.Source, n))
			}
			k := recordKey{rec.Source, rec.Variant}
			if rec.Error != nil {
				k.variant = -1
			}
			if keys[k] {
				f.Close()
				return darkroom.Errorf(darkroom.InvalidInput, "%s line %d: %s variant %d is listed twice", path.Base(name), line, rec.Source, rec.Variant)
			}
			keys[k] = true
			if rec.Error == nil {
				for _, ref := range append([]FileRef{{rec.Output, rec.Bytes, rec.SHA256}}, rec.Labels...) {
					fi, err := out.Stat(ref.Path)
					if err != nil || fi.Size() != ref.Bytes {
						f.Close()
						return darkroom.Errorf(darkroom.NotFound, "%s line %d: %s is missing or not the file the shard wrote", path.Base(name), line, ref.Path)
					}
				}
			}
			recs = append(recs, rec)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return darkroom.Wrap(darkroom.Unavailable, err, "read %s", path.Base(name))
		}
	}
	if count == 0 {
		return darkroom.Errorf(darkroom.InvalidInput, "no shard manifests given")
	}
	if len(seen) != count {
		var missing []string
		for i := range count {
			if _, ok := seen[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		return darkroom.Errorf(darkroom.InvalidInput, "shards %s of %d are missing", strings.Join(missing, ", "), count)
	}
	return finish(out, &info, recs, Shard{})
}
