#!/usr/bin/env python3
"""OpenCV's time for the filters of internal/engine/ops_augment_filter.go on the
24-megapixel benchmark photo, the counterpart of `go test ./internal/engine -run XXX
-bench BenchmarkFilters24MP` (albumentations' MedianBlur is cv2.medianBlur on 8-bit
RGB; its Defocus a kernel through cv2.filter2D). Prints milliseconds per call, best of a few, for each kernel.

    python3 scripts/albumentations/bench_filters.py [photo]
"""
import os
import sys
import time

import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHOTO = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "testdata", "photos", "large-24mp.jpg")


def best(fn, n=3):
    t = []
    for _ in range(n):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    return min(t) * 1000


def main():
    img = cv2.cvtColor(cv2.imread(PHOTO, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    print(f"{img.shape[1]}x{img.shape[0]}, OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads")
    for k in (3, 5, 7, 15):
        print(f"median_blur/k{k}: cv2.medianBlur {best(lambda: cv2.medianBlur(img, k)):.0f} ms")
    # albumentations 1.3.1's Defocus (augmentations/blur/functional.py): a disc of the
    # radius on a grid of at least 17x17, blurred by a 3 or 5 px gaussian of sigma
    # alias_blur, applied with cv2.filter2D.
    for r in (4, 10):
        n = max(8, r)
        y, x = np.mgrid[-n:n + 1, -n:n + 1]
        disc = ((x * x + y * y) <= r * r).astype(np.float32)
        disc /= disc.sum()
        kernel = cv2.GaussianBlur(disc, (3, 3) if r <= 8 else (5, 5), 0.3)
        print(f"defocus/r{r}: cv2.filter2D {best(lambda: cv2.filter2D(img, -1, kernel)):.0f} ms")


if __name__ == "__main__":
    main()
