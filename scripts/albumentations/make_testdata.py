#!/usr/bin/env python3
"""Write the albumentations pipelines internal/augment/testdata/albumentations/ holds,
with the real albumentations 1.3.1 (A.to_dict and A.save), so the tests read what the
library writes, not what we think it writes.

    ALBU_REPO=<git dir of albumentations-team/albumentations> \
        ../shared/tools/albumentations-setup.sh /tmp/albu
    PYTHONPATH=/tmp/albu/pylib /usr/bin/python3 scripts/albumentations/make_testdata.py

Each pipeline is also loaded back with A.from_dict (and A.load), so a file here is one
albumentations itself reads.
"""
import json
import os
import sys

import albumentations as A
import cv2

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "internal", "augment", "testdata", "albumentations")


def pipelines():
    # A classification pipeline as the albumentations README writes one.
    classification = A.Compose([
        A.HorizontalFlip(p=0.5),
        A.Rotate(limit=15, p=0.7),
        A.OneOf([A.Blur(blur_limit=5), A.GaussianBlur(blur_limit=(3, 7)), A.GaussNoise(var_limit=(10, 50))], p=0.5),
        A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=0.0, p=0.5),
        A.HueSaturationValue(hue_shift_limit=10, sat_shift_limit=0, val_shift_limit=0, p=0.3),
        A.MedianBlur(blur_limit=5, p=0.1),
    ])
    # A detection pipeline: boxes in pascal_voc, keypoints, min_visibility.
    detection = A.Compose([
        A.HorizontalFlip(p=0.5),
        A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=10, border_mode=cv2.BORDER_CONSTANT, p=0.5),
        A.SomeOf([A.RGBShift(), A.RandomGamma(), A.CLAHE(), A.ToGray()], n=2, p=0.8),
        A.OneOrOther(A.ImageCompression(quality_lower=60, quality_upper=90), A.Downscale(scale_min=0.5, scale_max=0.75), p=0.5),
        A.CoarseDropout(max_holes=4, max_height=32, max_width=32, p=0.3),
    ], bbox_params=A.BboxParams(format="pascal_voc", min_visibility=0.3, label_fields=["labels"]),
        keypoint_params=A.KeypointParams(format="xy"))
    # Every class the readings map, each once, with its defaults, in two pipelines
    # (darkroom runs at most 32 steps).
    every = [
        A.HorizontalFlip(), A.VerticalFlip(), A.Transpose(), A.RandomRotate90(), A.Rotate(), A.ShiftScaleRotate(),
        A.Affine(rotate=(-10, 10)), A.CenterCrop(64, 64), A.Crop(0, 0, 200, 200), A.RandomResizedCrop(128, 128),
        A.RandomScale(), A.LongestMaxSize(max_size=512), A.SmallestMaxSize(max_size=256), A.PadIfNeeded(600, 600),
        A.CropAndPad(percent=0.1), A.RandomCropFromBorders(), A.RandomGridShuffle(), A.Perspective(),
        A.Blur(), A.GaussianBlur(), A.MotionBlur(), A.ZoomBlur(), A.GlassBlur(), A.UnsharpMask(),
        A.GaussNoise(), A.ISONoise(), A.RandomBrightnessContrast(), A.RandomBrightness(), A.RandomGamma(),
        A.HueSaturationValue(), A.ColorJitter(), A.CLAHE(), A.Equalize(), A.RandomToneCurve(), A.Posterize(),
        A.ToGray(), A.InvertImg(), A.Solarize(), A.RGBShift(), A.ChannelShuffle(), A.ChannelDropout(), A.ToSepia(),
        A.FancyPCA(), A.Emboss(), A.Downscale(), A.ImageCompression(), A.JpegCompression(), A.RandomFog(),
        A.RandomShadow(), A.RandomSnow(), A.CoarseDropout(), A.Cutout(), A.PixelDropout(), A.GridDropout(),
    ]
    half = len(every) // 2
    # Containers three deep (SomeOf > Sequential > OneOrOther; OneOrOther > OneOf): a
    # OneOf whose one member of p 1 is always the one chosen, and Normalize, which
    # darkroom cannot do, inside it.
    nested = A.Compose([
        A.HorizontalFlip(p=0.5),
        A.SomeOf([
            A.OneOf([A.Blur(blur_limit=5, p=1), A.GaussianBlur(blur_limit=(3, 7), p=0), A.Normalize(p=0)], p=1),
            A.Sequential([A.Rotate(limit=10, p=1), A.OneOrOther(A.RandomGamma(p=1), A.ToGray(p=1), p=0.3)], p=0.5),
            A.RGBShift(p=0.5),
        ], n=2, replace=False, p=0.9),
        A.OneOrOther(A.OneOf([A.VerticalFlip(), A.Transpose()], p=1),
                     A.OneOf([A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=0), A.ToSepia()], p=1), p=0.6),
    ], bbox_params=A.BboxParams(format="pascal_voc", min_visibility=0.3, label_fields=["labels"]))
    # Five containers deep: more than darkroom's groups nest.
    deep = A.HorizontalFlip(p=1)
    for _ in range(5):
        deep = A.OneOf([deep, A.VerticalFlip(p=1)], p=1)
    return {"classification": classification, "detection": detection,
            "every-1": A.Compose(every[:half]), "every-2": A.Compose(every[half:]),
            "nested": nested, "too-deep": A.Compose([deep])}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, p in pipelines().items():
        d = A.to_dict(p)
        assert A.from_dict(d) is not None
        path = os.path.join(OUT, name + ".json")
        A.save(p, path, data_format="json")
        A.load(path, data_format="json")
        if name == "classification":
            ypath = os.path.join(OUT, name + ".yaml")
            A.save(p, ypath, data_format="yaml")
            A.load(ypath, data_format="yaml")
        print("wrote", os.path.relpath(path), "albumentations", A.__version__, file=sys.stderr)


if __name__ == "__main__":
    main()
