"""An update on a Play stream is the WatchTableResponse's own bytes wrapped by hand (its tag
and length): they must be exactly the PlayResponse protobuf would serialize."""

from __future__ import annotations

import pytest

from bezique.service import translate
from bezique.v1 import table_service_pb2 as pb


@pytest.mark.parametrize("size", [0, 1, 120, 127, 128, 300, 16_383, 16_384, 2_100_000])
def test_a_wrapped_update_is_the_play_response_protobuf_writes(size: int) -> None:
    update = pb.WatchTableResponse(version=7, entry_kind="m" * size)
    version, data = translate.play_update(update)
    assert version == 7
    assert data == pb.PlayResponse(update=update).SerializeToString()
    assert pb.PlayResponse.FromString(data).update == update
