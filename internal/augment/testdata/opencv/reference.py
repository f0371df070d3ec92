#!/usr/bin/env python3
"""The formulas of albumentations 1.3.1 where it is a thin layer over OpenCV, for
TestOpenCVParity (CI cannot fetch albumentations; Debian's python3-opencv it can).

    reference.py SRC.png CASES.json OUTDIR

CASES.json is a list of {"name", "op", ...}; each writes OUTDIR/<name>.png, computed as
albumentations.augmentations.*.functional computes it for uint8 RGB images.
"""
import json
import sys

import cv2
import numpy as np


def run(img, c):
    h, w = img.shape[:2]
    op = c["op"]
    if op == "hflip":
        return np.ascontiguousarray(img[:, ::-1])
    if op == "vflip":
        return np.ascontiguousarray(img[::-1])
    if op == "transpose":
        return np.ascontiguousarray(img.transpose(1, 0, 2))
    if op == "shift_scale_rotate":  # geometric.functional.rotate / shift_scale_rotate
        m = cv2.getRotationMatrix2D((w / 2 - 0.5, h / 2 - 0.5), c["angle"], c.get("scale", 1.0))
        m[0, 2] += c.get("dx", 0) * w
        m[1, 2] += c.get("dy", 0) * h
        return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=c["border"])
    if op == "center_crop":
        ch, cw = c["height"], c["width"]
        y, x = (h - ch) // 2, (w - cw) // 2
        return img[y:y + ch, x:x + cw]
    if op == "pad":  # PadIfNeeded: centred, BORDER_REFLECT_101 or BORDER_CONSTANT with value
        ph, pw = max(c["min_height"] - h, 0), max(c["min_width"] - w, 0)
        top, left = ph // 2, pw // 2
        if "value" in c:
            return cv2.copyMakeBorder(img, top, ph - top, left, pw - left, cv2.BORDER_CONSTANT, value=c["value"])
        return cv2.copyMakeBorder(img, top, ph - top, left, pw - left, cv2.BORDER_REFLECT_101)
    if op == "resize":  # Resize: geometric.functional.resize, INTER_LINEAR
        return cv2.resize(img, (c["width"], c["height"]), interpolation=cv2.INTER_LINEAR)
    if op == "blur":
        return cv2.blur(img, (c["k"], c["k"]))
    if op == "gaussian_blur":
        return cv2.GaussianBlur(img, (c["k"], c["k"]), sigmaX=c.get("sigma", 0))
    if op == "brightness":  # _brightness_contrast_adjust_uint, brightness_by_max
        lut = np.clip(np.arange(0, 256) * c.get("alpha", 1.0) + c["beta"] * 255, 0, 255).astype(np.uint8)
        return cv2.LUT(img, lut)
    if op == "contrast_mean":  # ColorJitter contrast: adjust_contrast_torchvision, uint8
        mean = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).mean()
        lut = np.clip(np.arange(0, 256) * c["factor"] + mean * (1 - c["factor"]), 0, 255).astype(np.uint8)
        return cv2.LUT(img, lut)
    if op == "gamma":
        table = (np.arange(0, 256.0 / 255, 1.0 / 255) ** c["gamma"]) * 255
        return cv2.LUT(img, table.astype(np.uint8))
    if op == "rgb_shift":
        out = np.empty_like(img)
        for i, s in enumerate(c["shift"]):
            lut = np.clip(np.arange(0, 256) + s, 0, 255).astype(np.uint8)
            out[..., i] = cv2.LUT(img[..., i], lut)
        return out
    if op == "posterize":
        mask = ~np.uint8(2 ** (8 - c["bits"]) - 1)
        return img & mask
    if op == "invert":
        return 255 - img
    raise SystemExit("unknown op " + op)


def main():
    src, cases, out = sys.argv[1:4]
    img = cv2.cvtColor(cv2.imread(src, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    for c in json.load(open(cases)):
        res = run(img, c)
        cv2.imwrite(f"{out}/{c['name']}.png", cv2.cvtColor(res, cv2.COLOR_RGB2BGR))


if __name__ == "__main__":
    main()
