"""The golden contract (trainer/contract/): the trainer's parser accepts and rejects exactly these specs and
events; the TypeScript reader is held to the same files (test/training/trainerContract.pure.test.ts)."""

import json
import re
from pathlib import Path

import pytest

from pau_trainer.protocol import (
    COMMANDS,
    ERROR_EXIT,
    PROTOCOL_VERSION,
    ExitCode,
    TrainerError,
    parse_spec,
    validate_event,
)

CONTRACT = Path(__file__).resolve().parent.parent / "contract"


def load(name: str):
    return json.loads((CONTRACT / name).read_text())


def names_field(message: str, field: str) -> bool:
    """Every part of a dotted field (`lora.rank`, `advantage.gamma`) is named in the message as a word."""
    return all(
        re.search(rf"(^|[^A-Za-z0-9_]){re.escape(part)}([^A-Za-z0-9_]|$)", message) for part in field.split(".") if part
    )


@pytest.mark.parametrize("case", load("specs.valid.json"), ids=lambda c: c["name"])
def test_valid_specs_parse(case):
    parse_spec(case["command"], case["spec"])


@pytest.mark.parametrize("case", load("specs.invalid.json"), ids=lambda c: c["name"])
def test_invalid_specs_are_refused_naming_the_field(case):
    with pytest.raises(TrainerError) as e:
        parse_spec(case["command"], case["spec"])
    assert e.value.code == "invalid_spec"
    assert names_field(e.value.message, case["field"]), e.value.message


@pytest.mark.parametrize("event", load("events.valid.json"), ids=lambda e: e["type"])
def test_valid_events(event):
    validate_event(event)


@pytest.mark.parametrize("case", load("events.invalid.json"), ids=lambda c: c["name"])
def test_invalid_events_are_refused_naming_the_field(case):
    with pytest.raises(ValueError) as e:
        validate_event(case["event"])
    assert names_field(str(e.value), case["field"]), str(e.value)


def test_codes():
    codes = load("codes.json")
    assert codes["protocol"] == PROTOCOL_VERSION
    assert list(codes["commands"]) == list(COMMANDS)
    assert codes["exit"] == {c.name.lower(): int(c) for c in ExitCode}
    assert codes["error_exit"] == {k: int(v) for k, v in ERROR_EXIT.items()}


def test_every_event_type_is_covered():
    from pau_trainer.protocol import EVENT_FIELDS

    assert {e["type"] for e in load("events.valid.json")} == set(EVENT_FIELDS)
