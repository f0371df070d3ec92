"""Check a COCO file darkroom wrote the way pycocotools reads it.

pycocotools is not installable here, so this implements what COCO.annToMask does
(annToRLE, then decode) for the three forms a segmentation takes: polygons (filled
at pixel centres by the even-odd rule; frPoly's rasterization differs at most on
boundary pixels, and only the source's polygons are decoded here), uncompressed RLE ({"counts": [...]}, which
frPyObjects accepts for any iscrowd) and compressed RLE (pycocotools' string). For
every annotation it requires a mask of the image's size whose pixel count is the
annotation's area and whose extent is its bbox; ids must be unique, and the
variants' ids must not collide with the source file's. It prints one JSON report.

usage: anntomask.py OUTPUT.json SOURCE.json
"""
import json
import sys

import numpy as np


def rle_from_string(s):
    cnts, p = [], 0
    while p < len(s):
        x, k, more = 0, 0, True
        while more:
            c = ord(s[p]) - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and (c & 0x10):
                x |= -1 << (5 * k)
        if len(cnts) > 2:
            x += cnts[-2]
        cnts.append(x)
    return cnts


def ann_to_mask(segm, h, w):
    if isinstance(segm, list):
        ys, xs = np.mgrid[0:h, 0:w] + 0.5
        inside = np.zeros((h, w), bool)
        for poly in segm:
            p = np.array(poly, np.float64).reshape(-1, 2)
            for (x0, y0), (x1, y1) in zip(p, np.roll(p, -1, axis=0)):
                if y0 == y1:
                    continue
                cross = ((y0 <= ys) != (y1 <= ys)) & (xs < x0 + (ys - y0) * (x1 - x0) / (y1 - y0))
                inside ^= cross
        return inside.astype(np.uint8)
    rh, rw = segm["size"]
    counts = segm["counts"]
    if isinstance(counts, str):
        counts = rle_from_string(counts)
    flat = np.zeros(rh * rw, np.uint8)
    i, v = 0, 0
    for c in counts:
        flat[i:i + c] = v
        i += c
        v = 1 - v
    if i != rh * rw:
        raise ValueError("runs cover %d of %d pixels" % (i, rh * rw))
    return flat.reshape((rw, rh)).T  # column-major, as pycocotools


def main():
    out = json.load(open(sys.argv[1]))
    src = json.load(open(sys.argv[2]))
    report = {"annotations": 0, "segmentations": 0, "errors": []}
    images = {im["id"]: im for im in out["images"]}
    if len(images) != len(out["images"]):
        report["errors"].append("image ids are not unique")
    src_img_ids = {im["id"] for im in src["images"]}
    src_ann_ids = {a["id"] for a in src["annotations"]}
    if src_img_ids & set(images):
        report["errors"].append("variant image ids collide with the source's: %s" % sorted(src_img_ids & set(images)))
    ann_ids = [a["id"] for a in out["annotations"]]
    if len(set(ann_ids)) != len(ann_ids):
        report["errors"].append("annotation ids are not unique")
    if src_ann_ids & set(ann_ids):
        report["errors"].append("variant annotation ids collide with the source's")
    for a in out["annotations"]:
        report["annotations"] += 1
        im = images.get(a["image_id"])
        if im is None:
            report["errors"].append("annotation %s: image_id %s is not an image" % (a["id"], a["image_id"]))
            continue
        if "source_id" not in a or a["source_id"] not in src_ann_ids:
            report["errors"].append("annotation %s: no source_id from the source file" % a["id"])
        if "segmentation" not in a:
            continue
        report["segmentations"] += 1
        m = ann_to_mask(a["segmentation"], im["height"], im["width"])
        if m.shape != (im["height"], im["width"]):
            report["errors"].append("annotation %s: mask %s, image %dx%d" % (a["id"], m.shape, im["width"], im["height"]))
            continue
        area = int(m.sum())
        if area != a["area"]:
            report["errors"].append("annotation %s: mask area %d, area %s" % (a["id"], area, a["area"]))
        if area:
            ys, xs = np.nonzero(m)
            box = [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]
            if [round(b, 6) for b in a["bbox"]] != box:
                report["errors"].append("annotation %s: mask extent %s, bbox %s" % (a["id"], box, a["bbox"]))
    # The source's own segmentations decode too (the reader agrees with pycocotools').
    src_images = {im["id"]: im for im in src["images"]}
    for a in src["annotations"]:
        if a.get("segmentation"):
            im = src_images[a["image_id"]]
            ann_to_mask(a["segmentation"], im["height"], im["width"])
    json.dump(report, sys.stdout)


main()
