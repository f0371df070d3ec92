#!/usr/bin/python3
"""bench_dataset_opencv.py: the dataset-augmentation peer of `make bench`.

Runs the 4-transform pipeline darkroom's dataset benchmark runs -- horizontal flip,
rotate 10 degrees (bilinear, reflected border), gaussian blur (sigma 1.5 px),
brightness/contrast (x1.2, +10) -- over a folder of images 1024 px on their long edge,
with OpenCV from Python (Debian's python3-opencv, what albumentations runs on), one
worker process per core, each reading, transforming and writing (JPEG, quality 95)
one image at a time. Reports images written per second and peak memory.

    scripts/bench_dataset_opencv.py [--input DIR] [--prepare-from SRC] [--count N]
                                    [--variants V] [--workers W] [--runs R] [--json]

--input DIR is the benchmark folder. With --prepare-from SRC (a photo or a folder of
photos), the script first fills DIR (a temporary folder when --input is not given)
with --count images made from SRC, resized to 1024 px on the long edge (INTER_AREA)
and saved as JPEG quality 95, so darkroom can be run over the very same folder; the
path is printed. Default SRC: ../shared/testdata/photos beside the checkout.

Each run is timed from the moment every worker is up (process start-up excluded) to
the last image written; the median of --runs runs (default 3) after one untimed
warm-up is reported. Each worker sets cv2.setNumThreads(1): parallelism comes from one
image per worker, as in darkroom, not from OpenCV's own threads. Peak memory is the
sum of every worker's peak RSS plus the parent's (all live for the whole run, so this
is the tree's peak to within the workers' timing), and the largest single worker's.

Exits 0 with a note on stderr when cv2 is not installed (apt-get install
python3-opencv), so `make bench` goes on without it.
"""

import argparse
import json
import multiprocessing as mp
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

try:
    import cv2
except ImportError:
    print("bench_dataset_opencv: cv2 not installed (apt-get install python3-opencv); skipped",
          file=sys.stderr)
    sys.exit(0)

IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp")
LONG_EDGE = 1024


def augment(img):
    """The 4 transforms, in darkroom's stage order (geometry, tone, detail)."""
    img = cv2.flip(img, 1)
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 10, 1.0)
    img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT_101)
    img = cv2.convertScaleAbs(img, alpha=1.2, beta=10)
    return cv2.GaussianBlur(img, (0, 0), sigmaX=1.5, sigmaY=1.5)


def worker(jobs, outdir, ready, results):
    cv2.setNumThreads(1)
    ready.put(os.getpid())
    done = 0
    while True:
        job = jobs.get()
        if job is None:
            break
        path, variant = job
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            continue
        out = augment(img)
        stem = os.path.splitext(os.path.basename(path))[0]
        cv2.imwrite(os.path.join(outdir, "%s_v%d.jpg" % (stem, variant)), out,
                    [cv2.IMWRITE_JPEG_QUALITY, 95])
        done += 1
    # ru_maxrss is in KiB on Linux.
    results.put((done, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))


def run_once(images, variants, workers, outdir):
    ctx = mp.get_context("fork")
    jobs, ready, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=worker, args=(jobs, outdir, ready, results))
             for _ in range(workers)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get()
    start = time.perf_counter()
    for path in images:
        for v in range(variants):
            jobs.put((path, v))
    for _ in procs:
        jobs.put(None)
    stats = [results.get() for _ in procs]
    elapsed = time.perf_counter() - start
    for p in procs:
        p.join()
    written = sum(d for d, _ in stats)
    return written, elapsed, [kb for _, kb in stats]


def prepare(src, dest, count):
    if os.path.isdir(src):
        photos = sorted(os.path.join(src, f) for f in os.listdir(src)
                        if f.lower().endswith(IMAGE_EXTS))
    else:
        photos = [src]
    resized = []
    for p in photos:
        img = cv2.imread(p, cv2.IMREAD_COLOR)
        if img is None:
            continue
        h, w = img.shape[:2]
        s = LONG_EDGE / max(h, w)
        resized.append(cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))),
                                  interpolation=cv2.INTER_AREA))
    if not resized:
        sys.exit("bench_dataset_opencv: no readable photo in %s" % src)
    os.makedirs(dest, exist_ok=True)
    for i in range(count):
        cv2.imwrite(os.path.join(dest, "img%04d.jpg" % i), resized[i % len(resized)],
                    [cv2.IMWRITE_JPEG_QUALITY, 95])


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", help="folder of images, 1024 px on the long edge")
    ap.add_argument("--prepare-from", nargs="?", const="",
                    help="fill --input from this photo or folder first "
                         "(default ../shared/testdata/photos)")
    ap.add_argument("--count", type=int, default=48, help="images to prepare (default 48)")
    ap.add_argument("--variants", type=int, default=1, help="variants per image (default 1)")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ap.add_argument("--workers", type=int, default=cores,
                    help="worker processes (default: the cores this process may use)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs (default 3)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="bench-dataset-")
    try:
        indir = args.input
        if args.prepare_from is not None or indir is None:
            src = args.prepare_from or os.path.join(root, "..", "shared", "testdata", "photos")
            if not os.path.exists(src):
                print("bench_dataset_opencv: %s not found; nothing to measure" % src,
                      file=sys.stderr)
                return 0
            indir = indir or os.path.join(tmp, "input")
            # In a child, so that decoding the full-size sources does not count in the
            # parent's peak memory.
            p = mp.get_context("fork").Process(target=prepare, args=(src, indir, args.count))
            p.start()
            p.join()
            if p.exitcode != 0:
                return p.exitcode
            if args.input:
                print("bench_dataset_opencv: input prepared in %s" % indir, file=sys.stderr)
        images = sorted(os.path.join(indir, f) for f in os.listdir(indir)
                        if f.lower().endswith(IMAGE_EXTS))
        if not images:
            sys.exit("bench_dataset_opencv: no images in %s" % indir)

        outdir = os.path.join(tmp, "out")
        rates, peaks_total, peaks_worker = [], [], []
        for i in range(args.runs + 1):
            shutil.rmtree(outdir, ignore_errors=True)
            os.makedirs(outdir)
            written, elapsed, worker_kb = run_once(images, args.variants, args.workers, outdir)
            if written != len(images) * args.variants:
                sys.exit("bench_dataset_opencv: wrote %d of %d images"
                         % (written, len(images) * args.variants))
            if i == 0:
                continue  # warm-up: page cache, imports
            parent_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            rates.append(written / elapsed)
            peaks_total.append((parent_kb + sum(worker_kb)) / 1024)
            peaks_worker.append(max(worker_kb) / 1024)

        h, w = cv2.imread(images[0]).shape[:2]
        result = {
            "tool": "opencv-python",
            "opencv": cv2.__version__,
            "images": len(images),
            "variants": args.variants,
            "size": "%dx%d" % (w, h),
            "workers": args.workers,
            "runs": args.runs,
            "images_per_second": round(statistics.median(rates), 2),
            "peak_rss_mb": round(statistics.median(peaks_total), 1),
            "peak_rss_worker_mb": round(statistics.median(peaks_worker), 1),
        }
        if args.json:
            print(json.dumps(result))
        else:
            print("opencv %s: %d images x %d variants (%s), %d workers: %.2f images/s, "
                  "peak RSS %.1f MB (largest worker %.1f MB), median of %d runs"
                  % (result["opencv"], result["images"], result["variants"], result["size"],
                     result["workers"], result["images_per_second"], result["peak_rss_mb"],
                     result["peak_rss_worker_mb"], result["runs"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
