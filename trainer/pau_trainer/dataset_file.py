"""A PAU dataset file (`<name>.jsonl.gz`, schema `pau-dataset-file/1`, docs/datasets.md) read with pyarrow.

    python -m pau_trainer.dataset_file to-parquet IN.jsonl.gz OUT.parquet

writes the same records as Parquet (`pau dataset export --format parquet` runs this in the trainer venv,
which has pyarrow). The schema is given, not inferred, so every file has the same column types, even one
whose records happen to leave a nullable column empty.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.json as paj
import pyarrow.parquet as pq

_OUTCOME = pa.struct([("ok", pa.bool_()), ("repr", pa.string()), ("excType", pa.string()), ("message", pa.string())])
_REFERENCE = pa.struct(
    [
        ("text", pa.string()),
        ("model", pa.string()),
        ("promptVersion", pa.string()),
        ("coderModel", pa.string()),
        ("codeMatch", pa.float64()),
        ("threshold", pa.float64()),
        ("createdAt", pa.string()),
    ]
)
# The record's fields in file order (domain/dataset/fileRecord.ts, datasetFileRecordSchema).
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("split", pa.string()),
        ("position", pa.int64()),
        ("source", pa.string()),
        ("sourceId", pa.string()),
        ("license", pa.string()),
        ("entryPoint", pa.string()),
        ("signature", pa.string()),
        ("code", pa.string()),
        ("codeHash", pa.string()),
        ("nearHash", pa.string()),
        ("goldKind", pa.string()),
        ("goldDescription", pa.string()),
        ("referenceDescription", _REFERENCE),
        ("probeInputs", pa.list_(pa.string())),
        ("probeOutputs", pa.list_(_OUTCOME)),
        ("heldoutInputs", pa.list_(pa.string())),
        ("heldoutOutputs", pa.list_(_OUTCOME)),
        ("heldoutGenerated", pa.list_(pa.string())),
        ("heldoutGeneratedOutputs", pa.list_(_OUTCOME)),
        ("codeMatchExclusion", pa.string()),
        ("behaviourKey", pa.string()),
        ("meta", pa.string()),
    ]
)


def read_table(path: Path) -> pa.Table:
    """The records as an Arrow table with SCHEMA (a field the schema lacks is an error, not a new column)."""
    opts = paj.ParseOptions(explicit_schema=SCHEMA, unexpected_field_behavior="error")
    with pa.input_stream(str(path), compression="gzip" if path.suffix == ".gz" else None) as f:
        return paj.read_json(f, parse_options=opts)


def to_parquet(src: Path, dst: Path) -> int:
    table = read_table(src)
    tmp = dst.with_name(dst.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    tmp.replace(dst)
    return table.num_rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pau_trainer.dataset_file", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("to-parquet")
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    args = parser.parse_args(argv)
    rows = to_parquet(args.src, args.dst)
    print(json.dumps({"rows": rows, "out": str(args.dst)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
