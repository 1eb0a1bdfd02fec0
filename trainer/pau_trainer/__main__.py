"""CLI: python -m pau_trainer <sft|grpo-update|export-gguf-lora|policy-shift> --spec SPEC.json  (contract: protocol.py)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback

from .distributed import ENV_PROCESSES
from .protocol import COMMANDS, ERROR_EXIT, ExitCode, TrainerError, emit, parse_spec


def _quiet_libraries() -> None:
    # stdout is the wire: libraries must not print there, and their progress bars are noise in logs.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pau_trainer", description=__doc__)
    parser.add_argument("command", choices=COMMANDS)
    parser.add_argument("--spec", required=True, help="path to the JSON job spec")
    parser.add_argument(
        "--watch-stdin",
        action="store_true",
        help="exit at once when the parent (a worker) dies: stdin EOF, a new parent pid, or (Linux) "
        "PR_SET_PDEATHSIG; the retry resumes from the last complete save (parent_watch.py)",
    )
    args = parser.parse_args(argv)
    from .distributed import launched_by_torchrun

    rank_of_a_launch = launched_by_torchrun()
    if args.watch_stdin:
        from .parent_watch import die_with_parent

        die_with_parent()
    elif rank_of_a_launch:
        from .parent_watch import set_pdeathsig

        set_pdeathsig()  # a rank never outlives the launcher that started it (launch.py)
    # Anything printed by a library goes to stderr; stdout carries only our JSON lines.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    from . import protocol
    from .cancel import Cancel, Cancelled

    # one job, one event stream: in a job of N processes only rank 0 speaks (launch.py)
    rank = int(os.environ.get("RANK", "0")) if rank_of_a_launch else 0
    protocol.set_event_stream(real_stdout if rank == 0 else None)
    cancel = Cancel()
    cancel.install()
    try:
        try:
            with open(args.spec, encoding="utf-8") as f:
                raw = json.load(f)
        except OSError as e:
            raise TrainerError("invalid_spec", f"cannot read spec {args.spec}: {e.strerror}") from e
        except ValueError as e:
            raise TrainerError("invalid_spec", f"spec {args.spec} is not JSON: {e}") from e
        spec = parse_spec(args.command, raw)
        if args.command in ("sft", "grpo-update") and not rank_of_a_launch:
            from .launch import launch, resolve_nodes, resolve_processes

            n = resolve_processes(os.environ.get(ENV_PROCESSES), getattr(spec, "device", "cpu"))
            nodes = resolve_nodes(os.environ)
            if n > 1 or nodes.count > 1:
                job_argv = list(argv if argv is not None else sys.argv[1:])
                output_dir = str(getattr(spec, "output_dir", "job"))
                job_id = os.path.basename(os.path.normpath(output_dir))
                if nodes.count > 1 and nodes.rank == 0:
                    from .peer import announce

                    announce(args.command, args.spec, output_dir, job_id)  # the other hosts join it (peer.py)
                return launch(n, job_argv, cancelled=cancel.requested, nodes=nodes, job_id=job_id)
        if args.command != "export-gguf-lora":  # the export needs neither torch nor threads
            import torch

            threads = getattr(spec, "threads", None) or int(os.environ.get("PAU_TRAINER_THREADS", "1"))
            torch.set_num_threads(threads)
            torch.set_num_interop_threads(1)
            _quiet_libraries()
        from . import distributed

        if args.command in ("sft", "grpo-update"):
            d = distributed.setup(getattr(spec, "device", "cpu"))
            if args.command == "grpo-update" and d.enabled:
                from .grpo import sized_to_ranks

                spec = sized_to_ranks(spec, d.world, given="mini_batch_size" in raw)  # type: ignore[arg-type]
        try:
            if args.command == "sft":
                from .sft import run_sft

                run_sft(spec, cancel)  # type: ignore[arg-type]
            elif args.command == "grpo-update":
                from .grpo import run_grpo

                run_grpo(spec, cancel)  # type: ignore[arg-type]
            elif args.command == "policy-shift":
                from .shift import run_shift

                run_shift(spec, cancel)  # type: ignore[arg-type]
            else:
                from .gguf_lora import run_export

                run_export(spec)  # type: ignore[arg-type]
        except Cancelled:
            return int(ExitCode.CANCELLED)
        finally:
            distributed.shutdown()
        return int(ExitCode.OK)
    except TrainerError as e:
        emit("error", code=e.code, message=e.message)
        if rank:
            print(f"pau_trainer rank {rank}: {e.code}: {e.message}", file=sys.stderr)
        return int(ERROR_EXIT[e.code])
    except Exception as e:  # a bug: the traceback goes to stderr, one error line to stdout
        traceback.print_exc(file=sys.stderr)
        emit("error", code="internal", message=f"{type(e).__name__}: {e}")
        return int(ExitCode.INTERNAL)


if __name__ == "__main__":
    code = main()
    # What a job keeps is on disk by now: every save, result and event line is written and flushed as it happens
    # (a kill -9 at any point is resumable), so the interpreter's teardown of torch and transformers (about 2 s
    # of CPU per process) is skipped.
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if stream is not None:
            stream.flush()
    os._exit(code)
