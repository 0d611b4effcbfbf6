"""The faster constructors of Event (variants/_fast_event.py), Move and the view's records
(variants/_fast_records.py) build exactly what the dataclasses' own would: the same fields,
defaults and keywords, and the records stay frozen."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from bezique.variants import _fast_event, _fast_records
from bezique.variants.api import EMPTY, AmountRange, Census, Event, Move, Pile, View, Zone
from bezique.variants.cards import piquet_shoe

INITS: dict[type, Callable[..., None]] = {**_fast_records.INITS, Event: _fast_event.event_init}
RECORDS = sorted(INITS.items(), key=lambda item: item[0].__name__)

EXAMPLES: dict[type, tuple[Any, ...]] = {
    Event: ("deal", 1, (3, 4), 5, "x", {"round": 2}, frozenset({1}), 0),
    Move: ("raise", (3,), 20, "x", AmountRange(20, 90)),
    Pile: ("hand", (3, 4), frozenset({1}), 1),
    Census: ((Pile("table", (5,)),), 40, (1, 2), (30, 10), 12, {"round": 2}),
    Zone: ("hand", 1, (), 2),
    View: (0, "play", (0,), (3, 17), (Zone("table", None, (5,)),), (1, 0), (9, 9), 4,
           {"round": 2}, piquet_shoe(1)),
}


def test_every_record_of_the_view_and_move_is_covered() -> None:
    assert set(INITS) == {Event, Move, Pile, Census, Zone, View} == set(EXAMPLES)


@pytest.mark.parametrize(("record", "init"), RECORDS, ids=lambda value: getattr(
    value, "__name__", ""))
def test_it_is_installed_with_the_dataclass_fields_and_defaults(
        record: type, init: Callable[..., None]) -> None:
    assert record.__dict__["__init__"] is init
    parameters = list(inspect.signature(init).parameters.values())[1:]
    fields = dataclasses.fields(record)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        default = (field.default_factory() if field.default_factory is not dataclasses.MISSING
                   else field.default)
        expected = inspect.Parameter.empty if default is dataclasses.MISSING else default
        assert parameter.default == expected, field.name


@pytest.mark.parametrize("record", [record for record, _ in RECORDS],
                         ids=lambda record: getattr(record, "__name__", ""))
def test_it_builds_equal_frozen_records_from_positions_or_keywords(record: type) -> None:
    values = EXAMPLES[record]
    names = [field.name for field in dataclasses.fields(record)]
    by_position = record(*values)
    by_keyword = record(**dict(zip(names, values, strict=True)))
    assert by_position == by_keyword
    assert [getattr(by_position, name) for name in names] == list(values)
    required = [f for f in dataclasses.fields(record) if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    least = record(*values[:len(required)])  # the rest at their defaults
    for field in dataclasses.fields(record)[len(required):]:
        default = (field.default_factory() if field.default_factory is not dataclasses.MISSING
                   else field.default)
        assert getattr(least, field.name) == default, field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_position, names[0], values[0])
    with pytest.raises(TypeError):
        record()


def test_defaults_are_the_shared_empty_detail() -> None:
    assert Event("pass").detail is EMPTY and Event("pass").hidden == 0
    assert View(None, "play", (), ()).detail is EMPTY
    assert Census(()).detail is EMPTY
    assert Move("pass") == Move("pass", (), 0, "", None) and hash(Move("pass")) == hash(
        Move(kind="pass"))
