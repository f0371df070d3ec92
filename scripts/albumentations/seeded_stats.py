#!/usr/bin/env python3
"""Seeded transforms against albumentations 1.3.1, matched in kind.

RandomSizedCrop and MultiplicativeNoise draw from darkroom's seed (the engine's
counter-based hash), not from Python's random, so no pixel row of parity.py can hold
them. This script runs the same A.to_dict pipeline many times through albumentations
and once through `darkroom augment --pipeline @file --count N`, and prints the
statistics docs/albumentations.md records:

- RandomSizedCrop: the crop each library made, read back from where its keypoints
  land (a grid of keypoints; two kept ones give the crop's scale and offset): the
  crop's height (mean, deviation, range, share of draws at each end of
  min_max_height), its width over its height, and where it sits (x0 / (W - w) and
  y0 / (H - h), 0.5 on average for a uniform position);
- MultiplicativeNoise: the ratio output / input on pixels whose input is between 32
  and 200 (no clipping, no tiny denominators), over 100 draws: its mean over the image per draw
  (mean and deviation over the draws: the per-image factor's spread), its deviation
  inside one image (the per-pixel spread), and the deviation of the three channels'
  mean ratios (per channel).

    PYTHONPATH=/tmp/albu/pylib /usr/bin/python3 scripts/albumentations/seeded_stats.py

It builds darkroom with `go build` (or uses $DARKROOM).
"""
import json
import os
import random
import shutil
import subprocess
import tempfile

import albumentations as A
import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHOTOS = os.path.realpath(os.path.join(ROOT, "..", "shared", "testdata", "photos"))


def darkroom_bin(tmp):
    if os.environ.get("DARKROOM"):
        return os.environ["DARKROOM"]
    out = os.path.join(tmp, "darkroom")
    subprocess.run(["go", "build", "-o", out, "./cmd/darkroom"], cwd=ROOT, check=True)
    return out


def load(photo):
    return cv2.cvtColor(cv2.imread(os.path.join(PHOTOS, photo), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def darkroom_run(dr, tmp, photo, comp, count, annotations=None):
    """count variants, in calls of at most 64 (augment_image's limit), seeds 1, 2, ..."""
    pfile = os.path.join(tmp, "pipeline.json")
    with open(pfile, "w") as f:
        json.dump(A.to_dict(comp), f)
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        n = min(64, count - len(out))
        ws = os.path.join(tmp, "ws")
        shutil.rmtree(ws, ignore_errors=True)
        cmd = [dr, "augment", os.path.join(PHOTOS, photo), "--allow-root", PHOTOS, "--workspace", ws,
               "--pipeline", "@" + pfile, "--seed", str(seed), "--count", str(n),
               "--options", json.dumps({"return_images": 0}), "--json"]
        if annotations:
            cmd += ["--annotations", json.dumps(annotations)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        env = json.loads(p.stdout.splitlines()[-1])
        if not env.get("success"):
            raise SystemExit(f"darkroom: {env.get('error')}\n{p.stderr}")
        for v in env["data"]["variants"]:
            img = cv2.cvtColor(cv2.imread(os.path.join(ws, v["path"]), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
            kp = ((v.get("annotations") or {}).get("keypoints") or {})
            out.append((img, list(zip(kp.get("points", []), kp.get("labels") or []))))
    return out


def crop_of(src_points, moved):
    """The crop (x0, y0, w, h) from keypoints src_points[label] -> moved (point, label)."""
    if len(moved) < 2:
        return None
    (p1, l1) = moved[0]
    best = None
    for (p2, l2) in moved[1:]:
        a, b = src_points[l1], src_points[l2]
        if a[0] != b[0] and a[1] != b[1]:
            best = (p2, l2)
            break
    if best is None:
        return None
    (p2, l2) = best
    a, b = src_points[l1], src_points[l2]
    sx = (p1[0] - p2[0]) / (a[0] - b[0])
    sy = (p1[1] - p2[1]) / (a[1] - b[1])
    x0, y0 = a[0] - p1[0] / sx, a[1] - p1[1] / sy
    return x0, y0, OUT / sx, OUT / sy


OUT = 256


def sized_crop(dr, tmp, photo, lo, hi, ratio, n):
    img = load(photo)
    H, W = img.shape[:2]
    pts = [[x + 0.5, y + 0.5] for y in range(0, H, 16) for x in range(0, W, 16)]
    labels = list(range(len(pts)))
    comp = A.Compose([A.RandomSizedCrop(min_max_height=(lo, hi), height=OUT, width=OUT, w2h_ratio=ratio, p=1)],
                     keypoint_params=A.KeypointParams(format="xy", label_fields=["kp_labels"]))
    rows = {}
    albu = []
    for s in range(n):
        random.seed(s)
        np.random.seed(s)
        r = comp(image=img, keypoints=pts, kp_labels=labels)
        albu.append(crop_of(pts, list(zip(r["keypoints"], r["kp_labels"]))))
    rows["albumentations"] = albu
    dark = darkroom_run(dr, tmp, photo, comp, n, {"keypoints": {"points": pts, "labels": labels}})
    rows["darkroom"] = [crop_of(pts, kp) for _, kp in dark]
    for who, crops in rows.items():
        crops = [c for c in crops if c]
        h = np.array([round(c[3]) for c in crops])
        w = np.array([round(c[2]) for c in crops])
        px = np.array([c[0] / max(1, W - c[2]) for c in crops])
        py = np.array([c[1] / max(1, H - c[3]) if H - c[3] >= 1 else 0.5 for c in crops])
        print(f"| RandomSizedCrop(({lo}, {hi}), {OUT}, {OUT}, w2h_ratio={ratio}) | {photo} | {who} | {len(crops)} | "
              f"{h.mean():.1f} | {h.std():.1f} | {h.min()}..{h.max()} | {(h == lo).mean():.3f} / {(h == hi).mean():.3f} | "
              f"{(w / h).mean():.3f} | {px.mean():.2f} | {py.mean():.2f} |")


def ratios(img, out):
    a = img.astype(np.float64)
    b = out.astype(np.float64)
    m = (a >= 32) & (a <= 200)
    r = np.where(m, b / np.maximum(a, 1), np.nan)
    per_image = np.nanmean(r)
    within = np.nanstd(r)
    chans = [np.nanmean(r[..., c]) for c in range(3)]
    return per_image, within, float(np.std(chans))


def mult_noise(dr, tmp, photo, kw, n):
    img = load(photo)
    comp = A.Compose([A.MultiplicativeNoise(p=1, **kw)])
    albu = []
    for s in range(n):
        random.seed(s)
        np.random.seed(s)
        albu.append(ratios(img, comp(image=img)["image"]))
    dark = [ratios(img, out) for out, _ in darkroom_run(dr, tmp, photo, comp, n)]
    label = ", ".join(f"{k}={v}" for k, v in kw.items())
    for who, rs in (("albumentations", albu), ("darkroom", dark)):
        rs = np.array(rs)
        print(f"| MultiplicativeNoise({label}) | {photo} | {who} | {rs[:, 0].mean():.4f} | {rs[:, 0].std():.4f} | "
              f"{rs[:, 1].mean():.4f} | {rs[:, 2].mean():.4f} |")


def main():
    tmp = tempfile.mkdtemp(prefix="albu-seeded-")
    try:
        dr = darkroom_bin(tmp)
        print("| transform | photo | who | draws | crop height mean | deviation | range | share at min / max | width / height | x0 / (W - w) | y0 / (H - h) |")
        print("|---|---|---|---:|---:|---:|---|---|---:|---:|---:|")
        sized_crop(dr, tmp, "coffee.png", 200, 300, 1.2, 400)
        sized_crop(dr, tmp, "chelsea.png", 150, 250, 1.5, 400)
        print()
        print("| transform | photo | who | mean ratio | its deviation over draws | deviation inside an image | deviation of the channels' means |")
        print("|---|---|---|---:|---:|---:|---:|")
        for kw in ({}, {"multiplier": (0.8, 1.3)}, {"elementwise": True}, {"per_channel": True},
                   {"multiplier": (0.7, 1.0), "elementwise": True, "per_channel": True}):
            for photo in ("coffee.png", "chelsea.png"):
                mult_noise(dr, tmp, photo, kw, 100)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
