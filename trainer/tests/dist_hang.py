"""A 2-rank gloo group in which rank 1 never joins rank 0's collective (a hung peer): rank 0 must fail within
PAU_TRAINER_COLLECTIVE_TIMEOUT_S with the trainer's own error, not hang. Run by test_multinode.py with
RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set per process; prints what rank 0 got as one JSON line."""

from __future__ import annotations

import json
import sys
import time

from pau_trainer import distributed
from pau_trainer.protocol import TrainerError

d = distributed.setup("cpu")
if d.rank == 1:
    time.sleep(float(sys.argv[1]))  # hung: never reaches the all-reduce
    sys.exit(0)
t0 = time.monotonic()
try:
    distributed.any_true(d, False)
    print(json.dumps({"error": None}))
except TrainerError as e:
    print(json.dumps({"code": e.code, "message": e.message, "waited_s": time.monotonic() - t0}))
sys.stdout.flush()
import os  # noqa: E402

os._exit(0)  # the group is broken: skip its teardown
