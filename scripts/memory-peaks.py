#!/usr/bin/env python3
"""memory-peaks.py: the peak resident memory of a real darkroom server under the
requests that used to crash it or take memory past --decode-budget (issue 28).

Each case starts `darkroom serve` afresh (stdio MCP, raw JSON-RPC lines), sends its
calls, checks that the process is still alive and answers tools/list, and reads its
peak resident set (VmHWM in /proc/PID/status). It prints one line per case: the
answers' codes, the peak in MiB and the bound (--decode-budget + 300 MiB).

    scripts/memory-peaks.py [--budget MiB] [--photo FILE] [--cases a,b,...]
                            [--count N] [--format png|jpeg] [--pipeline noisy|flip]

The photo defaults to ../shared/testdata/photos/large-24mp.jpg (6000x4000); it is
read where it is, never copied into the repository. The binary is built into a
temporary directory, where every file of the run is written. Linux only (/proc).
"""

import argparse
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mask_bomb(w, h):
    """A PNG of under 100 bytes whose header declares w x h RGBA of 16 bits."""

    def chunk(typ, data):
        return struct.pack(">I", len(data)) + typ + data + struct.pack(">I", zlib.crc32(typ + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 16, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


def coco_file(path, target_bytes, images):
    """A COCO file of about target_bytes naming the given image files, its
    annotations as small as real ones get (the case where parsing costs most)."""
    with open(path, "w") as f:
        f.write('{"info":{"description":"memory-peaks"},"images":[')
        f.write(",".join('{"id":%d,"file_name":"%s","width":640,"height":480}' % (i + 1, n) for i, n in enumerate(images)))
        f.write('],"annotations":[')
        written, k = 0, 0
        while f.tell() < target_bytes:
            rows = []
            for _ in range(10000):
                k += 1
                rows.append('{"id":%d,"image_id":%d,"category_id":%d,"bbox":[%d.5,%d.25,%d,%d],"area":%d,"iscrowd":0}'
                            % (k, 1 + k % len(images), 1 + k % 3, k % 600, k % 400, 10 + k % 30, 12 + k % 20, 300))
            f.write(("," if written else "") + ",".join(rows))
            written += 1
        f.write('],"categories":[{"id":1,"name":"cat"},{"id":2,"name":"dog"},{"id":3,"name":"bird"}]}')
    return k


class Server:
    def __init__(self, binary, args):
        self.p = subprocess.Popen([binary, "serve"] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0)
        self.next_id = 0
        self.replies = {}
        self.cv = threading.Condition()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.p.stderr), daemon=True).start()
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "memory-peaks", "version": "0"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.p.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "id" in msg and ("result" in msg or "error" in msg):
                with self.cv:
                    self.replies[msg["id"]] = msg
                    self.cv.notify_all()
        with self.cv:
            self.cv.notify_all()

    def _send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())

    def start(self, method, params):
        with self.cv:
            self.next_id += 1
            i = self.next_id
        self._send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return i

    def wait(self, i, timeout=1800):
        deadline = time.time() + timeout
        with self.cv:
            while i not in self.replies:
                if self.p.poll() is not None or time.time() > deadline:
                    return None
                self.cv.wait(1)
            return self.replies.pop(i)

    def request(self, method, params):
        return self.wait(self.start(method, params))

    def call(self, tool, args):
        return self.start("tools/call", {"name": tool, "arguments": args})

    def alive(self):
        if self.p.poll() is not None:
            return False
        r = self.request("tools/list", {})
        return r is not None and "result" in r

    def vmhwm_mib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return -1

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(30)
        except Exception:
            self.p.kill()


def outcome(reply):
    if reply is None:
        return "no answer"
    if "error" in reply:
        return "jsonrpc error " + str(reply["error"].get("code"))
    env = reply["result"].get("structuredContent") or {}
    if env.get("success"):
        return "ok"
    return (env.get("error") or {}).get("code", "?")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=1536, help="--decode-budget in MiB")
    ap.add_argument("--photo", default=os.path.join(ROOT, "..", "shared", "testdata", "photos", "large-24mp.jpg"))
    ap.add_argument("--cases", default="mask-bomb,dataset-mask-bomb,count-64,parallel-5,coco")
    ap.add_argument("--count", type=int, default=64)
    ap.add_argument("--coco-mb", type=int, default=102)
    ap.add_argument("--format", default="png", help="output_format of the augment_image cases")
    ap.add_argument("--pipeline", default="noisy", choices=["noisy", "flip"],
                    help="noisy: rotate and strong gaussian noise (the costly case); flip: a horizontal flip (fast)")
    a = ap.parse_args()
    photo = os.path.abspath(a.photo)
    if not os.path.exists(photo):
        print("memory-peaks: %s not found" % photo, file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="memory-peaks-")
    try:
        binary = os.path.join(tmp, "darkroom")
        subprocess.run(["go", "build", "-o", binary, "./cmd/darkroom"], cwd=ROOT, check=True)
        photos = os.path.dirname(photo)
        bound = a.budget + 300
        print("budget %d MiB, bound %d MiB, photo %s" % (a.budget, bound, os.path.basename(photo)))
        noisy = [{"entry": "rotate", "params": {"angle": [-15, 15]}},
                 {"entry": "gaussian_noise", "params": {"sigma": [0.1, 0.2]}}]
        recipe = noisy if a.pipeline == "noisy" else [{"entry": "flip_horizontal"}]
        failed = False
        for case in a.cases.split(","):
            ws = os.path.join(tmp, "ws-" + case)
            srv = Server(binary, ["--workspace", ws, "--allow-root", photos, "--allow-root", tmp,
                                  "--decode-budget", str(a.budget)])
            start = time.time()
            if case == "mask-bomb":
                ids = [srv.call("augment_image", {"path": photo, "pipeline": noisy[:1], "seed": 1,
                                                  "annotations": {"mask_b64": base64.b64encode(mask_bomb(60000, 60000)).decode()}}),
                       srv.call("augment_image", {"path": photo, "pipeline": noisy[:1], "seed": 1,
                                                  "annotations": {"mask_b64": base64.b64encode(mask_bomb(6000, 4000)).decode()}})]
            elif case == "dataset-mask-bomb":
                d = os.path.join(tmp, "set")
                os.makedirs(os.path.join(d, "masks"), exist_ok=True)
                shutil.copy(os.path.join(ROOT, "samples", "coffee.png"), os.path.join(d, "coffee.png"))
                with open(os.path.join(d, "masks", "coffee.png"), "wb") as f:
                    f.write(mask_bomb(60000, 60000))
                ids = [srv.call("augment_dataset", {"input": d, "output": "out", "pipeline": noisy[:1]})]
            elif case == "count-64":
                ids = [srv.call("augment_image", {"path": photo, "pipeline": recipe, "seed": 1, "count": a.count,
                                                  "options": {"output_format": a.format}})]
            elif case == "parallel-5":
                ids = [srv.call("augment_image", {"path": photo, "pipeline": recipe, "seed": s, "count": 2,
                                                  "options": {"output_format": a.format}}) for s in range(5)]
            elif case == "coco":
                d = os.path.join(tmp, "coco")
                os.makedirs(d, exist_ok=True)
                names = []
                for i in range(4):
                    n = "img%d.png" % i
                    shutil.copy(os.path.join(ROOT, "samples", "coffee.png"), os.path.join(d, n))
                    names.append(n)
                anns = coco_file(os.path.join(d, "annotations.json"), a.coco_mb * 1000 * 1000, names)
                size = os.path.getsize(os.path.join(d, "annotations.json"))
                print("coco: %.1f MB, %d annotations" % (size / 1e6, anns))
                ids = [srv.call("augment_dataset", {"input": d, "output": "out", "pipeline": [{"entry": "flip_horizontal"}]})]
            else:
                print("unknown case " + case, file=sys.stderr)
                continue
            codes = [outcome(srv.wait(i)) for i in ids]
            alive = srv.alive()
            peak = srv.vmhwm_mib() if alive else -1
            elapsed = time.time() - start
            ok = alive and peak < bound
            failed = failed or not ok
            extra = ""
            if case == "coco" and alive:
                extra = " (%.1fx the file)" % (peak * (1 << 20) / size)
            print("%-18s answers %-40s alive %-5s peak %6.0f MiB%s %s bound, %.0f s" % (
                case, ",".join(codes), alive, peak, extra, "under" if ok else "OVER", elapsed))
            if not alive:
                sys.stdout.write(b"".join(srv.stderr[-20:]).decode(errors="replace"))
            srv.close()
        return 1 if failed else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
