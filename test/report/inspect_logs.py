"""Reads every eval log in a folder with inspect_ai's own reader (read_eval_log, which validates each log
against inspect's pydantic models) and prints what the export test compares with Postgres, as one JSON
document: per log its task, model, status, metadata and samples (id, epoch, episode id, message count,
per-scorer values, the no-transcript reason). Run with the pinned inspect_ai venv's python.

Usage: python inspect_logs.py LOG_DIR
"""

import json
import sys

from inspect_ai.log import list_eval_logs, read_eval_log


def main(log_dir: str) -> None:
    logs = []
    for info in list_eval_logs(log_dir, recursive=False):
        log = read_eval_log(info.name)
        samples = [
            {
                "id": s.id,
                "epoch": s.epoch,
                "episode_id": s.metadata.get("episode_id"),
                "message_count": len(s.messages),
                "roles": [m.role for m in s.messages],
                "tool_calls": sum(len(m.tool_calls or []) for m in s.messages if m.role == "assistant"),
                "scores": {k: v.value for k, v in (s.scores or {}).items()},
                "no_transcript": s.metadata.get("no_transcript"),
                "completion": s.output.completion,
                "input_tokens": sum(u.input_tokens for u in s.model_usage.values()),
            }
            for s in log.samples or []
        ]
        logs.append(
            {
                "file": info.name,
                "task": log.eval.task,
                "list_task": info.task,
                "model": log.eval.model,
                "status": log.status,
                "dataset": log.eval.dataset.name,
                "metadata": log.eval.metadata,
                "scorers": {
                    s.name: {k: m.value for k, m in s.metrics.items()}
                    for s in (log.results.scores if log.results else [])
                },
                "samples": samples,
            }
        )
    json.dump({"logs": logs}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
