#!/usr/bin/env python3
"""OpenCV's time for the filters of internal/engine/ops_augment_filter.go on the
24-megapixel benchmark photo, the counterpart of `go test ./internal/engine -run XXX
-bench BenchmarkFilters24MP` (albumentations' MedianBlur is cv2.medianBlur on 8-bit
RGB). Prints milliseconds per call, best of a few, for each kernel.

    python3 scripts/albumentations/bench_filters.py [photo]
"""
import os
import sys
import time

import cv2

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


if __name__ == "__main__":
    main()
