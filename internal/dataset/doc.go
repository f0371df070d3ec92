// Package dataset augments a folder of labelled images: it finds the images and
// their labels (YOLO, COCO, Pascal VOC, PNG masks), runs an augmentation over every
// image on every core, writes the variants with their labels moved, in the input's
// format, and a manifest that says what was made from what. It is resumable,
// deterministic and shardable, so an array-job scheduler can spread a dataset over
// many machines with no coordinator. It knows nothing of MCP, of the augmentation
// itself or of allowed roots: the caller opens the input (an fs.FS) and the output
// (an *os.Root, or any Store: a folder or a bucket prefix) after checking them, and
// passes the augmentation as an AugmentFunc.
// Errors are darkroom.Error values with the contract's codes.
//
// # Input
//
// Open lists the folder. Images are the files ending in .jpg, .jpeg, .png, .tif,
// .tiff, .webp, .gif or .dng (any case), sorted by their slash-separated path
// relative to the folder, except under the top-level masks/ folder and under hidden
// folders. Labels refer to the image as decoded: upright after its EXIF
// orientation and, for a DNG, developed (DefaultCrop applied); a DNG's variants are
// written as PNG when the format is "keep".
// Labels:
//
//	<dir>/<stem>.txt        YOLO: "class cx cy w h" per line, normalised; YOLO-pose
//	                        keypoints may follow (x y or x y v each)
//	labels/<s>/<stem>.txt   YOLO in the Ultralytics layout, for images/<s>/<stem>.<ext>
//	                        (the last images/ folder of the path becomes labels/);
//	                        see ultralytics.go
//	classes.txt, data.yaml  YOLO class names (data.yaml: names, kpt_shape), at the top
//	<dir>/<stem>.xml        Pascal VOC, one per image
//	<name>.json             COCO: one instances file at the top (an object with an
//	                        "images" list); images are matched by file_name relative
//	                        to the folder, or by base name when that is unique. When
//	                        there is one, .txt and .xml files are not read.
//	masks/<dir>/<stem>.png  a label mask, the same size as the image
//
// Masks live in their own tree rather than beside the image (<stem>_mask.png) so that
// a mask is never mistaken for an image to augment. An image may have no labels.
// A label file that cannot be read (a short YOLO line, a class beyond classes.txt,
// VOC that is not XML, a COCO annotation with a bad bbox or an unknown category, a
// mask of the wrong size) is that image's error: the image is skipped and reported
// with its code (invalid_input, masking_error), the run goes on. Two images with the
// same stem in one folder (cat.jpg, cat.png) are both refused, since their labels and
// variants would share names. Only a folder-wide file that cannot be read (the COCO
// file, data.yaml) or two COCO files fail Open. A file that looks like labels but
// labels no image, or is in a format not read, is in Dataset.Unread, and a run reports
// it with its skipped images (unreadLabels).
//
// Labels reach the AugmentFunc in one neutral form (Labels): pixel boxes
// [x0, y0, x1, y1] with a class, per-object keypoints, and the mask as an image.
// YOLO is scaled by the image size read from the image's header; VOC's 1-based
// inclusive corners become [xmin-1, ymin-1, xmax, ymax].
//
// # Seeds and determinism
//
// Variant v of the image at relative path rel, in a run seeded with s, gets the seed
// VariantSeed(s, rel, v): the first 8 bytes, big endian, of
//
//	SHA-256("darkroom-dataset-v1\x00" + rel + "\x00" + decimal(s) + "\x00" + decimal(v))
//
// masked to 53 bits (exact as a JSON number everywhere). The AugmentFunc draws from
// that seed only, so a variant depends on (s, rel, v) and nothing else: not on the
// worker that made it, the order, the shard, or an earlier interrupted run. The
// manifest is written at the end, sorted by (source, variant), so equal runs give
// byte-identical manifests.
//
// # Output
//
//	darkroom-dataset.json        what every shard of the run shares: recipe, seed,
//	                             variants, class names, the COCO file's categories,
//	                             info and licenses
//	classes.txt, data.yaml       copied verbatim from the input when present
//	<dir>/<stem>_v<v><ext>       variant v (ext from the AugmentFunc, or the source's)
//	<dir>/<stem>_v<v>.txt        its YOLO labels, normalised to the variant's size,
//	                             keypoints with as many numbers as the input's
//	<dir>/<stem>_v<v>.xml        its VOC labels, naming the variant's file and size
//	masks/<dir>/<stem>_v<v>.png  its mask
//	<coco file name>             the COCO file of all variants (unsharded runs and Merge)
//	manifest.jsonl               one line per variant, and one per skipped image
//	manifest.partial.jsonl       the journal of a run in progress or interrupted
//
// A manifest line (Record) names the source, the variant, its seed, the sampled
// parameters, the output, its size and SHA-256, the variant's pixel size, its label
// files with their sizes and hashes, and for a COCO dataset its annotations:
//
//	{"source":"a/cat.png","variant":0,"seed":4730758048074575,"params":{"brightness":11,"flip":true},"output":"a/cat_v0.png","bytes":126,"sha256":"da10…","width":40,"height":30,"labels":[{"path":"a/cat_v0.txt","bytes":76,"sha256":"33ab…"}]}
//	{"source":"c/broken.png","error":{"code":"render_error","message":"c/broken.png is not a readable image: unexpected EOF"}}
//
// The COCO file is made from the sorted records alone (image ids max+1.. in manifest
// order, above the input's largest image id, annotation ids likewise above its largest
// annotation id, each image and annotation naming its source_id), so it too does not
// depend on timing, and Merge can write it from shard manifests. Boxes, keypoints,
// iscrowd, the categories and segmentation are carried: segmentations (polygons or
// RLE) move as one 16-bit instance map and come back as uncompressed RLE, clipped, with
// area and bbox from their pixels (segmentation.go); an object without one gets the
// moved box's area. In the Ultralytics layout a variant's labels go to labels/ like
// its source's.
//
// # Journal, cancellation and resume
//
// A worker takes one image, reads it once, and makes its variants one at a time:
// augment, write the label files then the image (each to a temporary file, renamed:
// darkroom's one writer, internal/fsx, inside the output folder's os.Root),
// then append the record to the journal in one write. So every journal line is a
// record of files fully written, and memory holds one source image (and one variant)
// per worker. No worker waits for the disk (two fsyncs cost a variant more than its
// augmentation): the journal is fsynced at most once a second, and before the
// manifest is written the files and their folders are made durable, on Linux by one
// flush of the output's file system, elsewhere by a few goroutines that fsync each
// written file behind the run. When ctx ends, workers stop before their
// next variant; the journal stays and no manifest is written. A failure to write the
// output (a full disk) stops the run the same way, with unavailable: it is no image's
// fault and the next image would fail alike. A crash can leave a torn last journal
// line, which the next run cuts off. An AugmentFunc that panics costs its image
// (internal_error), not the run.
//
// A rerun into the same folder reads the manifest and the journal of its shard (and,
// for a shard, the merged manifest) and reuses a variant whose record has the seed it
// would get, names exactly the files that variant's name gives (its image
// <stem>_v<n>.<ext>, its <stem>.txt, <stem>.xml or masks/<stem>.png once each: a
// record edited to name classes.txt or another variant's file is not trusted), and
// whose files all exist with the recorded size and SHA-256 (every reused file is
// hashed again); it makes the rest. Because nothing is reused
// unchecked, a power loss that undoes a variant's data, rename or journal line costs
// that variant being made again. A temporary file a killed run left beside one of
// the shard's outputs is removed when the rerun completes (only that shard writes
// those names, and its journal's lock keeps another run of it out). So a killed
// run, rerun, ends with the files, bytes and manifest of an uninterrupted one.
// Skipped images are tried again. A rerun with another recipe, seed, variant
// count or input class list is refused with state_error (darkroom-dataset.json
// differs): use a new folder. Variants of sources that left the input stay on disk but
// leave the manifest.
//
// # Shards
//
// Shard{i, n} (--shard i/n, 0 <= i < n) takes the images whose ShardOf(rel, n) is i:
// the first 8 bytes, big endian, of SHA-256("darkroom-shard-v1\x00" + rel), modulo n.
// The seed does not enter it, so an image stays in its shard across runs. A shard
// writes manifest.shard-<i>-of-<n>.jsonl (and its journal
// manifest.shard-<i>-of-<n>.partial.jsonl) and no COCO file; the shards may share one
// output folder (their temporary files have unique names, each locked by its
// writer while it lives, and the files they
// both write, darkroom-dataset.json and the names files, have the same bytes).
// Merge checks that the manifests are exactly the shards 0..n-1, that each record is
// in its shard and its files are present, and writes manifest.jsonl and the COCO file:
// the same bytes as an unsharded run.
//
// # Buckets
//
// The runner reads and writes its output only through a Store (Local for a folder,
// BucketStore for a prefix of an S3, GCS or Azure bucket through gocloud.dev/blob),
// and OpenBucketFS gives Open a bucket prefix as an fs.FS (folders are key prefixes
// up to a slash, listed a page at a time; objects are read as streams). On a bucket
// the same guarantees come by other means:
//
//	manifest.partial.jsonl/<run>-<n>.jsonl    the journal: one object per flush (at
//	                                          most one a second), whole lines only
//	manifest.lock/<generation>                the run's lock, {"holder", "expires"}
//	                                          (shards: manifest.shard-<i>-of-<n>.lock/)
//
// Each file is one object written whole (nothing under a temporary name, so Tidy has
// nothing to do), with its SHA-256 in the object's metadata (sha256): a rerun
// verifies a record with one HEAD per file. The lock is created only if absent (a
// conditional write); the holder rewrites it every third of its TTL and stops when
// it sees a later generation. A run that finds the newest generation expired creates
// the next one, which only one contender can do, and removes the older ones. A crash
// loses at most the journal lines of its last second; their variants are made again,
// with the same bytes. Credentials come only from each cloud's standard chain; a
// refusal is permission_error with a message that quotes nothing of the request.
package dataset
