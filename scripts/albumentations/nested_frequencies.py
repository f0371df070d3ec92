#!/usr/bin/env python3
"""How often each transform of nested.json runs in albumentations 1.3.1 itself.

Each transform of internal/augment/testdata/albumentations/nested.json is replaced by a
marker of the same p in the same containers, the pipeline run on 40000 seeds, and the
share of runs in which each marker fired printed: the figures TestNestedFiring's
comment quotes beside the probabilities darkroom's groups are held to.

    PYTHONPATH=/tmp/albu/pylib /usr/bin/python3 scripts/albumentations/nested_frequencies.py
"""
import random, numpy as np, json
import albumentations as A
from albumentations.core.transforms_interface import ImageOnlyTransform
class Mark(ImageOnlyTransform):
    def __init__(self, k, always_apply=False, p=0.5):
        super().__init__(always_apply, p); self.k = k
    def apply(self, img, **params):
        img = img.copy(); img[0, self.k] += 1; return img
# nested.json with each transform replaced by a marker of the same p
names = ["flip_horizontal","blur","gaussian_blur","median","shift_scale_rotate","random_gamma","to_gray","rgb_shift","flip_vertical","transpose","random_brightness","to_sepia"]
M = lambda n, p: Mark(names.index(n), p=p)
t = A.Compose([
    M("flip_horizontal", 0.5),
    A.SomeOf([
        A.OneOf([M("blur", 1), M("gaussian_blur", 0), M("median", 0)], p=1),
        A.Sequential([M("shift_scale_rotate", 1), A.OneOrOther(M("random_gamma", 1), M("to_gray", 1), p=0.3)], p=0.5),
        M("rgb_shift", 0.5),
    ], n=2, replace=False, p=0.9),
    A.OneOrOther(A.OneOf([M("flip_vertical", 0.5), M("transpose", 0.5)], p=1),
                 A.OneOf([M("random_brightness", 0.5), M("to_sepia", 0.5)], p=1), p=0.6),
])
N = 40000
c = np.zeros(len(names))
for i in range(N):
    random.seed(i); np.random.seed(i)
    c += t(image=np.zeros((2, len(names)), np.uint8))["image"][0]
print({n: round(x / N, 3) for n, x in zip(names, c)})
