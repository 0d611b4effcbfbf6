"""Event's faster constructor (variants/_fast_event.py) builds exactly what the dataclass's own
would: the same fields, defaults and keywords, and the record stays frozen."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from bezique.variants import _fast_event
from bezique.variants.api import EMPTY, Event


def test_every_event_is_built_by_the_fast_constructor() -> None:
    assert Event.__init__ is _fast_event.event_init


def test_its_parameters_are_the_dataclass_fields_with_their_defaults() -> None:
    parameters = list(inspect.signature(_fast_event.event_init).parameters.values())[1:]
    fields = dataclasses.fields(Event)
    assert [p.name for p in parameters] == [f.name for f in fields]
    for parameter, field in zip(parameters, fields, strict=True):
        default = (field.default_factory() if field.default_factory is not dataclasses.MISSING
                   else field.default)
        expected = inspect.Parameter.empty if default is dataclasses.MISSING else default
        assert parameter.default == expected, field.name


def test_it_builds_equal_frozen_records_from_positions_or_keywords() -> None:
    by_position = Event("deal", 1, (3, 4), 5, "x", EMPTY, frozenset({1}), 0)
    by_keyword = Event(kind="deal", seat=1, cards=(3, 4), amount=5, label="x",
                       visible_to=frozenset({1}))
    assert by_position == by_keyword
    assert (by_position.kind, by_position.hidden, by_position.detail) == ("deal", 0, {})
    assert Event("pass") == Event("pass", None, (), 0, "", EMPTY, None, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        by_position.kind = "play"  # type: ignore[misc]
    with pytest.raises(TypeError):
        Event()  # type: ignore[call-arg]
