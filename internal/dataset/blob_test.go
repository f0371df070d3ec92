package dataset

import (
	"context"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob/fileblob"

	darkroom "github.com/darkroom-mcp/darkroom"
)

func TestBucketURLWithin(t *testing.T) {
	root := func(s string) BucketURL {
		u, err := ParseBucketURL(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	for _, c := range []struct {
		url, root string
		want      bool
	}{
		{"s3://data/out", "s3://data/out", true},
		{"s3://data/out/a/b", "s3://data/out", true},
		{"s3://data/outside", "s3://data/out", false},
		{"s3://data/in", "s3://data/out", false},
		{"s3://other/out", "s3://data/out", false},
		{"gs://data/out", "s3://data/out", false},
		{"s3://data/anything", "s3://data", true},
		{"s3://data/out?endpoint=http://x", "s3://data/out?endpoint=http://x", true},
		{"s3://data/out?endpoint=http://evil", "s3://data/out?endpoint=http://x", false},
		{"s3://data/out", "s3://data/out?endpoint=http://x", true}, // takes the root's query
	} {
		if got := root(c.url).Within(root(c.root)); got != c.want {
			t.Errorf("%s within %s: %v, want %v", c.url, c.root, got, c.want)
		}
	}
	for _, bad := range []string{"s3://key:secret@data/out", "s3://data/a/../b", "s3://data/.hidden", "s3:///out", "http://data/out"} {
		_, err := ParseBucketURL(bad)
		if darkroom.Code(err) != darkroom.InvalidInput {
			t.Errorf("%s: %v, want invalid_input", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows the secret: %v", bad, err)
		}
	}
}

// fileStore is a BucketStore over a local folder through gocloud's fileblob driver,
// which honours the same conditional create as the cloud drivers.
func fileStore(t *testing.T, dir string, ttl time.Duration) *BucketStore {
	t.Helper()
	b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &BucketStore{b: b, ctx: context.Background(), url: BucketURL{Scheme: "s3", Bucket: "test"}, ttl: ttl}
}

// TestBucketLockTakeover: a second run of the shard is refused while the first
// holds the lock; once the holder stops renewing (killed), the lock expires and
// the next run takes it over, and the first, were it still alive, learns it lost
// the lock and stops writing its journal.
func TestBucketLockTakeover(t *testing.T) {
	dir := t.TempDir()
	a, b := fileStore(t, dir, time.Second), fileStore(t, dir, time.Second)
	name := JournalName(Shard{1, 3})
	ja, err := a.Journal(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Journal(name); darkroom.Code(err) != darkroom.StateError || !strings.Contains(err.Error(), "another run is writing this output") {
		t.Fatalf("a second run while the first holds the lock: %v, want state_error", err)
	}
	// The holder keeps renewing: still refused after more than a TTL.
	time.Sleep(1500 * time.Millisecond)
	if _, err := b.Journal(name); darkroom.Code(err) != darkroom.StateError {
		t.Fatalf("after a TTL with the holder renewing: %v, want state_error", err)
	}
	// The holder stops renewing, as a killed process does, without removing it.
	la := ja.(*bucketJournal).lock
	close(la.stop)
	<-la.done
	time.Sleep(1200 * time.Millisecond)
	jb, err := b.Journal(name)
	if err != nil {
		t.Fatalf("after the lock expired: %v", err)
	}
	defer jb.Close()
	// a's renewal would now see the later generation; run its check once.
	la.stop, la.done = make(chan struct{}), make(chan struct{})
	go la.renew()
	deadline := time.Now().Add(5 * time.Second)
	for la.lost() == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := ja.Write([]byte("{}\n")); err == nil || !strings.Contains(err.Error(), "took this output's lock over") {
		t.Errorf("the first run's journal after losing the lock: %v", err)
	}
	ja.Close()
	keys, err := b.list(lockPrefix(name), "/")
	if err != nil || len(keys) != 1 || !strings.HasSuffix(keys[0], "0000000002") {
		t.Errorf("locks after the takeover: %v, %v; want only generation 2", keys, err)
	}
}

// TestBucketJournalSegments: lines written and synced are read back in order from
// the journal's objects, and removing the journal removes them all.
func TestBucketJournalSegments(t *testing.T) {
	s := fileStore(t, t.TempDir(), time.Minute)
	name := JournalName(Shard{})
	j, err := s.Journal(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"a\n", "b\n", "c\n"} {
		j.Write([]byte(l))
		if err := j.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	j.Write([]byte("d\n"))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	r.Close()
	if sb.String() != "a\nb\nc\nd\n" {
		t.Errorf("journal read back %q", sb.String())
	}
	if err := s.Remove(name); err != nil {
		t.Fatal(err)
	}
	if keys, _ := s.list(name+"/", ""); len(keys) != 0 {
		t.Errorf("after Remove: %v", keys)
	}
	if keys, _ := s.list(lockPrefix(name), ""); len(keys) != 0 {
		t.Errorf("the lock stayed after Close: %v", keys)
	}
}
