"""The shipped PAU dataset file (datasets/pau-v1/) read with ordinary tools: Hugging Face `datasets`, pandas,
and pyarrow through pau_trainer.dataset_file (the Parquet export)."""

from __future__ import annotations

import collections
import gzip
import hashlib
import json
from pathlib import Path

import datasets
import pandas as pd
import pyarrow.parquet as pq

from pau_trainer.dataset_file import SCHEMA, main, read_table

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "datasets" / "pau-v1" / "pau-v1.jsonl.gz"
MANIFEST = json.loads((ROOT / "datasets" / "pau-v1" / "pau-v1.manifest.json").read_text())


def test_manifest_names_the_lines_sha256() -> None:
    data = gzip.decompress(DATA.read_bytes())
    assert hashlib.sha256(data).hexdigest() == MANIFEST["linesSha256"]
    assert MANIFEST["schema"] == "pau-dataset-file/1"


def test_loads_with_hugging_face_datasets(tmp_path: Path) -> None:
    ds = datasets.load_dataset("json", data_files=str(DATA), split="train", cache_dir=str(tmp_path))
    assert ds.num_rows == MANIFEST["records"] == 2167
    assert ds.column_names == SCHEMA.names
    assert dict(collections.Counter(ds["split"])) == MANIFEST["splits"]
    test = ds.filter(lambda r: r["split"] == "test")
    assert sorted(test["position"]) == list(range(MANIFEST["splits"]["test"]))
    for r in test.select(range(50)):
        assert r["signature"].startswith("def ")
        assert len(r["probeOutputs"]) == len(r["probeInputs"]) >= 1
        assert len(r["heldoutOutputs"]) == len(r["heldoutInputs"])
        assert isinstance(json.loads(r["meta"]), dict)


def test_loads_with_pandas() -> None:
    df = pd.read_json(DATA, lines=True, compression="gzip")
    assert len(df) == MANIFEST["records"]
    assert df["id"].is_unique
    assert set(df["source"]) == {"humaneval", "mbpp", "cruxeval", "codealpaca"}


def test_parquet_holds_the_same_records(tmp_path: Path) -> None:
    out = tmp_path / "pau-v1.parquet"
    assert main(["to-parquet", str(DATA), str(out)]) == 0
    table = pq.read_table(out)
    assert table.schema.equals(SCHEMA)
    assert table.num_rows == MANIFEST["records"]
    assert table.to_pylist()[:20] == read_table(DATA).to_pylist()[:20]
    first = json.loads(gzip.decompress(DATA.read_bytes()).split(b"\n", 1)[0])
    assert table.slice(0, 1).to_pylist()[0] == first
