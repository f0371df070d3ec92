package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"
)

// These tests run augment-dataset against a real S3 server, versitygw, started on a
// free loopback port with a folder of its own (.ci/run installs it; see the README
// for a local run). Skipped when it is not installed, failed under CI=true.

const (
	s3Access = "darkroomtest"
	s3Secret = "darkroom-test-secret-0123456789"
	s3Bucket = "data"
)

// versitygw finds the server's binary: $VERSITYGW, else versitygw on PATH.
func versitygw(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p
	}
	p, err := exec.LookPath("versitygw")
	if err != nil {
		msg := "versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0, or set VERSITYGW)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// s3Server is a running versitygw and the environment a darkroom process needs to
// reach it: the credentials in AWS's standard variables, nothing in arguments.
type s3Server struct {
	endpoint string
	creds    []string // AWS's standard variables
	env      []string // this process's environment and creds
}

// query is the bucket URLs' query: the server's endpoint, path-style requests.
func (s *s3Server) query(extra string) string {
	q := "?endpoint=" + s.endpoint + "&use_path_style=true&region=us-east-1"
	if extra != "" {
		q += "&" + extra
	}
	return q
}

func startVersitygw(t *testing.T) *s3Server {
	t.Helper()
	bin := versitygw(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, s3Bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--access", s3Access, "--secret", s3Secret, "--port", addr, "posix", root)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &s3Server{endpoint: "http://" + addr, creds: []string{
		"AWS_ACCESS_KEY_ID=" + s3Access, "AWS_SECRET_ACCESS_KEY=" + s3Secret, "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}}
	s.env = append(os.Environ(), s.creds...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.endpoint)
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not answer on %s: %v\n%s", addr, err, log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// bucket opens the test bucket from this process, with the same credentials.
func (s *s3Server) bucket(t *testing.T) *blob.Bucket {
	t.Helper()
	for _, kv := range s.creds {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	b, err := blob.OpenBucket(context.Background(), "s3://"+s3Bucket+s.query(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// upload copies every file under dir to the bucket under prefix.
func upload(t *testing.T, b *blob.Bucket, dir, prefix string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		return b.WriteAll(context.Background(), prefix+"/"+filepath.ToSlash(rel), data, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// objects is every object under prefix with its sha256, as tree is for a folder
// (the shards' own manifests left out); meta also checks that each object's
// sha256 metadata, where it has one, is its content's.
func objects(t *testing.T, b *blob.Bucket, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	it := b.List(&blob.ListOptions{Prefix: prefix + "/"})
	for {
		o, err := it.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(o.Key, prefix+"/")
		if strings.HasPrefix(rel, "manifest.shard-") {
			continue
		}
		data, err := b.ReadAll(context.Background(), o.Key)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		a, err := b.Attributes(context.Background(), o.Key)
		if err != nil {
			t.Fatal(err)
		}
		if m := a.Metadata["sha256"]; m != "" && m != out[rel] {
			t.Errorf("%s: its sha256 metadata %s is not its content's %s (a partial object)", o.Key, m, out[rel])
		}
	}
	return out
}

// addMasks writes a label mask for every image of the labelled folders, under
// masks/, the size of its image.
func addMasks(t *testing.T, in string) {
	t.Helper()
	size := map[string][2]int{"astronaut": {512, 512}, "chelsea": {451, 300}, "coffee": {600, 400}}
	for _, sub := range []string{"yolo", "coco"} {
		dir := filepath.Join(in, sub, "masks", "set")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for stem, wh := range size {
			m := image.NewGray(image.Rect(0, 0, wh[0], wh[1]))
			for y := wh[1] / 4; y < wh[1]*3/4; y++ {
				for x := wh[0] / 5; x < wh[0]/2; x++ {
					m.SetGray(x, y, color.Gray{Y: 1})
				}
			}
			var b bytes.Buffer
			if err := png.Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, stem+".png"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestBucketShardsMatchLocalRun uploads a YOLO and a COCO folder with label masks to
// a bucket, runs augment-dataset from bucket to bucket as three shards in three
// processes, each told its shard only by JOB_COMPLETION_INDEX (a Kubernetes Indexed
// Job's environment) with --shard auto, merges them from the bucket, and gets the
// same objects (keys and sha256) as one unsharded run from and to local folders,
// the corrupt image among them reported in the manifest.
func TestBucketShardsMatchLocalRun(t *testing.T) {
	s := startVersitygw(t)
	b := s.bucket(t)
	in := labelledFolders(t)
	addMasks(t, in)
	for _, format := range []string{"yolo", "coco"} {
		t.Run(format, func(t *testing.T) {
			// A corrupt image: skipped and reported, in the bucket as on disk.
			if err := os.WriteFile(filepath.Join(in, format, "set", "broken.png"), []byte("not a png"), 0o644); err != nil {
				t.Fatal(err)
			}
			upload(t, b, filepath.Join(in, format), "in/"+format)
			out := t.TempDir()
			recipe := []string{"--preset", "detection_safe", "--variants", "2", "--seed", "11"}
			runDarkroom(t, append([]string{"augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", in,
				"--allow-write-root", out, "--input", filepath.Join(in, format), "--output", filepath.Join(out, "local")}, recipe...)...)
			args := append([]string{"augment-dataset", "--workspace", filepath.Join(out, "ws"),
				"--allow-root", "s3://" + s3Bucket + "/in" + s.query(""),
				"--allow-write-root", "s3://" + s3Bucket + "/out" + s.query(""),
				"--input", "s3://" + s3Bucket + "/in/" + format, "--output", "s3://" + s3Bucket + "/out/" + format,
				"--shard", "auto", "--shard-count", "3"}, recipe...)
			var cmds []*exec.Cmd
			var logs []*bytes.Buffer
			for i := range 3 {
				cmd := darkroomCmd(t, args...)
				cmd.Env = append(s.env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
				var l bytes.Buffer
				cmd.Stdout, cmd.Stderr = &l, &l
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, logs = append(cmds, cmd), append(logs, &l)
			}
			for i, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("shard %d: %v\n%s", i, err, logs[i])
				}
				if strings.Contains(logs[i].String(), s3Secret) {
					t.Errorf("shard %d printed the secret key", i)
				}
			}
			merge := darkroomCmd(t, "augment-dataset", "merge", "s3://"+s3Bucket+"/out/"+format+s.query(""))
			merge.Env = s.env
			if o, err := merge.CombinedOutput(); err != nil {
				t.Fatalf("merge: %v\n%s", err, o)
			}
			local, remote := tree(t, filepath.Join(out, "local")), objects(t, b, "out/"+format)
			sameTree(t, "three shards on S3, merged", remote, local)
			if len(local) < 6*2 {
				t.Errorf("the local run wrote %d files, want the 6 variants with their masks and more", len(local))
			}
			manifest, err := b.ReadAll(context.Background(), "out/"+format+"/manifest.jsonl")
			if err != nil || !bytes.Contains(manifest, []byte(`{"source":"set/broken.png","error":{"code":"render_error"`)) {
				t.Errorf("the merged manifest does not report the corrupt image (%v):\n%s", err, manifest)
			}
			masks := 0
			for k := range local {
				if strings.HasPrefix(k, "masks/") {
					masks++
				}
			}
			if masks != 6 {
				t.Errorf("%d variant masks, want 6", masks)
			}
		})
	}
}

// TestBucketKillResume kills a run into a bucket (kill -9) once its first variants
// are there, checks that every object under the prefix is whole and that every
// journal line names objects that exist, then reruns: the rerun is refused while
// the dead run's lock has not expired, takes it over after, and ends with the
// objects of a run never interrupted (and its manifest).
func TestBucketKillResume(t *testing.T) {
	s := startVersitygw(t)
	b := s.bucket(t)
	in := labelledFolders(t)
	addMasks(t, in)
	upload(t, b, filepath.Join(in, "yolo"), "in/yolo")
	out := t.TempDir()
	// Enough variants that the run outlives its first journal flush (at most one a
	// second) on a fast machine: with 8 a run could finish before any journal object
	// was written, leaving nothing to kill.
	const variants = 48
	recipe := []string{"--pipeline", `[{"entry": "rotate", "params": {"angle": [-30, 30]}}, {"entry": "gaussian_blur", "p": 0.5}]`,
		"--variants", fmt.Sprint(variants), "--seed", "3"}
	runDarkroom(t, append([]string{"augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", in,
		"--allow-write-root", out, "--input", filepath.Join(in, "yolo"), "--output", filepath.Join(out, "clean")}, recipe...)...)
	const ttl = "lock_ttl=3s"
	args := append([]string{"augment-dataset", "--workspace", filepath.Join(out, "ws"),
		"--allow-root", "s3://" + s3Bucket + "/in" + s.query(""),
		"--allow-write-root", "s3://" + s3Bucket + "/out" + s.query(ttl),
		"--input", "s3://" + s3Bucket + "/in/yolo", "--output", "s3://" + s3Bucket + "/out/yolo", "--json"}, recipe...)

	cmd := darkroomCmd(t, args...)
	cmd.Env = s.env
	var runLog bytes.Buffer
	cmd.Stdout, cmd.Stderr = &runLog, &runLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	started := time.Now()
	deadline := started.Add(2 * time.Minute)
	for {
		objs, _, _ := b.ListPage(context.Background(), blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "out/yolo/manifest.partial.jsonl/"})
		if len(objs) > 0 {
			break
		}
		select {
		case err := <-exited:
			// Waiting out the deadline here would only hide what happened.
			t.Fatalf("the run ended (%v) after %v before a journal object was seen; raise variants if it finished\n%s",
				err, time.Since(started).Round(time.Millisecond), runLog.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no journal object within 2 minutes\n%s", runLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	if ok, _ := b.Exists(context.Background(), "out/yolo/manifest.jsonl"); ok {
		t.Fatalf("the run finished before it could be killed (after %v); raise variants", time.Since(started).Round(time.Millisecond))
	}

	// Every object whole (objects checks each one's sha256 metadata against its
	// bytes), every journal line's files there with their hash.
	left := objects(t, b, "out/yolo")
	lines := 0
	for k := range left {
		if !strings.HasPrefix(k, "manifest.partial.jsonl/") {
			continue
		}
		data, _ := b.ReadAll(context.Background(), "out/yolo/"+k)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var rec struct {
				Output, SHA256 string
				Labels         []struct{ Path, SHA256 string }
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("journal %s: %q: %v", k, line, err)
			}
			lines++
			if left[rec.Output] != rec.SHA256 {
				t.Errorf("journal line for %s: the object is %q, want sha256 %s", rec.Output, left[rec.Output], rec.SHA256)
			}
			for _, l := range rec.Labels {
				if left[l.Path] != l.SHA256 {
					t.Errorf("journal line for %s: label %s is %q, want %s", rec.Output, l.Path, left[l.Path], l.SHA256)
				}
			}
		}
	}
	if lines == 0 {
		t.Fatal("the journal objects hold no line")
	}

	// The dead run's lock holds until it expires: a rerun right away is refused.
	rerun := darkroomCmd(t, args...)
	rerun.Env = s.env
	o, err := rerun.CombinedOutput()
	if err == nil || !strings.Contains(string(o), "state_error") || !strings.Contains(string(o), "another run is writing this output") {
		t.Fatalf("a rerun while the killed run's lock holds: %v\n%s", err, o)
	}
	time.Sleep(3 * time.Second)
	rerun = darkroomCmd(t, args...)
	rerun.Env = s.env
	o, err = rerun.Output()
	if err != nil {
		t.Fatalf("rerun after the lock expired: %v\n%s", err, o)
	}
	var r struct {
		Data struct{ Reused, Written int } `json:"data"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(o), &r); err != nil {
		t.Fatalf("%s: %v", o, err)
	}
	if want := 3 * variants; r.Data.Reused < lines || r.Data.Reused+r.Data.Written != want {
		t.Errorf("rerun reused %d and wrote %d, want at least the journal's %d reused, of %d", r.Data.Reused, r.Data.Written, lines, want)
	}
	sameTree(t, "killed and resumed on S3", objects(t, b, "out/yolo"), tree(t, filepath.Join(out, "clean")))
}

// TestBucketLockRefusesSecondRun starts a run into a prefix and, while it holds the
// prefix's lock, a second run into the same prefix: the second is refused with
// state_error and writes nothing; the first completes.
func TestBucketLockRefusesSecondRun(t *testing.T) {
	s := startVersitygw(t)
	b := s.bucket(t)
	in := labelledFolders(t)
	upload(t, b, filepath.Join(in, "coco"), "in/coco")
	out := t.TempDir()
	args := []string{"augment-dataset", "--workspace", filepath.Join(out, "ws"),
		"--allow-root", "s3://" + s3Bucket + "/in" + s.query(""),
		"--allow-write-root", "s3://" + s3Bucket + "/out" + s.query(""),
		"--input", "s3://" + s3Bucket + "/in/coco", "--output", "s3://" + s3Bucket + "/out/coco",
		"--preset", "detection_safe", "--variants", "12", "--seed", "5"}
	first := darkroomCmd(t, args...)
	first.Env = s.env
	var firstLog bytes.Buffer
	first.Stdout, first.Stderr = &firstLog, &firstLog
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		objs, _, _ := b.ListPage(context.Background(), blob.FirstPageToken, 1, &blob.ListOptions{Prefix: "out/coco/manifest.lock/"})
		if len(objs) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no lock object within 2 minutes\n%s", firstLog.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := darkroomCmd(t, append(args, "--json")...)
	second.Env = s.env
	o, err := second.CombinedOutput()
	done, _ := b.Exists(context.Background(), "out/coco/manifest.jsonl")
	if done {
		t.Skip("the first run finished before the second started")
	}
	if err == nil || !strings.Contains(string(o), `"code":"state_error"`) || !strings.Contains(string(o), "another run is writing this output") {
		t.Fatalf("a second run while the first holds the lock: %v\n%s", err, o)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, firstLog.String())
	}
	if ok, _ := b.Exists(context.Background(), "out/coco/manifest.jsonl"); !ok {
		t.Error("the first run wrote no manifest")
	}
	objs, _, _ := b.ListPage(context.Background(), blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "out/coco/manifest.lock/"})
	if len(objs) != 0 {
		t.Errorf("the lock is still there after the run: %s", objs[0].Key)
	}
}

// TestBucketWrongCredential runs with a secret the server does not know: the run
// fails with permission_error, and nothing it prints holds the secret.
func TestBucketWrongCredential(t *testing.T) {
	s := startVersitygw(t)
	b := s.bucket(t)
	in := labelledFolders(t)
	upload(t, b, filepath.Join(in, "yolo"), "in/yolo")
	out := t.TempDir()
	const wrong = "not-the-secret-9876543210zyx"
	env := append(append([]string{}, s.env...), "AWS_SECRET_ACCESS_KEY="+wrong)
	for _, target := range []string{"input", "output"} {
		t.Run(target, func(t *testing.T) {
			args := []string{"augment-dataset", "--workspace", filepath.Join(out, "ws"), "--allow-root", in,
				"--allow-root", "s3://" + s3Bucket + "/in" + s.query(""),
				"--allow-write-root", "s3://" + s3Bucket + "/out" + s.query(""), "--allow-write-root", out,
				"--preset", "detection_safe", "--json"}
			if target == "input" {
				args = append(args, "--input", "s3://"+s3Bucket+"/in/yolo", "--output", filepath.Join(out, target))
			} else {
				args = append(args, "--input", filepath.Join(in, "yolo"), "--output", "s3://"+s3Bucket+"/out/"+target)
			}
			cmd := darkroomCmd(t, args...)
			cmd.Env = env
			o, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(o), `"code":"permission_error"`) {
				t.Fatalf("with a wrong secret: %v\n%s", err, o)
			}
			if strings.Contains(string(o), wrong) || strings.Contains(string(o), s3Secret) {
				t.Errorf("the error shows a secret:\n%s", o)
			}
		})
	}
}
