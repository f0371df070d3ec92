#!/usr/bin/env python3
"""Nested containers through darkroom and back through albumentations 1.3.1.

internal/augment/testdata/albumentations/nested.json (three containers deep, written by
make_testdata.py with the real library) is given to `darkroom augment --pipeline @file`
on a 600x400 image; the session's albumentations.json is loaded with A.from_dict, run on
the image, and written again with A.to_dict into nested-roundtrip.json, which
TestExportNested compares with what darkroom writes (the same containers, nesting, p, n
and replace; every parameter darkroom writes as albumentations keeps it) and reads back
into the same pipeline.

    PYTHONPATH=/tmp/albu/pylib /usr/bin/python3 scripts/albumentations/nested_roundtrip.py

It builds darkroom with `go build` (or uses $DARKROOM).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import albumentations as A
import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "internal", "augment", "testdata", "albumentations")


def main():
    tmp = tempfile.mkdtemp(prefix="albu-nested-")
    try:
        dr = os.environ.get("DARKROOM")
        if not dr:
            dr = os.path.join(tmp, "darkroom")
            subprocess.run(["go", "build", "-o", dr, "./cmd/darkroom"], cwd=ROOT, check=True)
        img = np.random.RandomState(1).randint(0, 256, (400, 600, 3), dtype=np.uint8)
        photo = os.path.join(tmp, "photos", "noise.png")
        os.makedirs(os.path.dirname(photo))
        cv2.imwrite(photo, img)
        ws = os.path.join(tmp, "ws")
        cmd = [dr, "augment", photo, "--allow-root", os.path.dirname(photo), "--workspace", ws,
               "--pipeline", "@" + os.path.join(DATA, "nested.json"), "--seed", "1", "--count", "1", "--json"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        env = json.loads(p.stdout.splitlines()[-1])
        if not env.get("success"):
            sys.exit("darkroom: %s" % env.get("error"))
        with open(os.path.join(ws, env["data"]["dir"], "albumentations.json")) as f:
            written = json.load(f)
        back = A.from_dict(written)
        for _ in range(20):
            back(image=img)
        out = os.path.join(DATA, "nested-roundtrip.json")
        with open(out, "w") as f:
            json.dump(A.to_dict(back), f, indent=2, sort_keys=True)
            f.write("\n")
        print("wrote", os.path.relpath(out, ROOT), "albumentations", A.__version__, file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
