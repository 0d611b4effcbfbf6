"""A bare grpc.aio echo server: the transport's own ceiling for the service benchmark.

It answers ``/bezique.v1.TableService/SubmitMove`` with a generic unary handler that does no
work: the request bytes are not parsed and the answer is a fixed blob, a real SubmitMoveResponse
captured from the measured server, so the client parses exactly what it parses there. The
same client code and concurrency then drive both servers.

Run: ``python -m bench.echo --response-file PATH`` (prints ``echo listening on HOST:PORT``);
with ``--work SQLITE_FILE`` instead, each SubmitMove gets bench.leastwork's least work.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path

import grpc

from bench.common import serve_until_signalled

SERVICE = "bezique.v1.TableService"
METHOD = "SubmitMove"


def _identity(data: bytes) -> bytes:
    return data


def _submit_move(submit: Callable[[bytes], bytes]) -> grpc.GenericRpcHandler[bytes, bytes]:
    """SubmitMove served as bytes in, ``submit(request)`` out, nothing parsed by grpc."""

    async def handle(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
        return submit(request)

    handler = grpc.unary_unary_rpc_method_handler(
        handle, request_deserializer=_identity, response_serializer=_identity)
    return grpc.method_handlers_generic_handler(SERVICE, {METHOD: handler})


def echo_handler(response: bytes) -> grpc.GenericRpcHandler[bytes, bytes]:
    """Every call answered with ``response``."""
    return _submit_move(lambda request: response)


def working_handler(database: Path) -> grpc.GenericRpcHandler[bytes, bytes]:
    """SubmitMove answered by bench.leastwork's least work (the request parsed, the move
    made and logged, the mover's answer rendered), not by a fixed blob."""
    from bench.leastwork import WorkingTables

    return _submit_move(WorkingTables(database).answer)


async def serve(address: str, handler: grpc.GenericRpcHandler[bytes, bytes]) -> None:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(address)
    await server.start()
    host = address.rsplit(":", 1)[0]
    await serve_until_signalled(server, f"echo listening on {host}:{port}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.echo")
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--response-file", type=Path,
                        help="the bytes every call answers with")
    parser.add_argument("--work", type=Path, metavar="SQLITE_FILE",
                        help="instead, do each move's least work (bench.leastwork), logging "
                             "to this file; served on uvloop, as bezique-server is")
    args = parser.parse_args()
    if args.work is not None:
        import uvloop

        uvloop.run(serve(args.address, working_handler(args.work)))
        return
    if args.response_file is None:
        parser.error("--response-file or --work is required")
    asyncio.run(serve(args.address, echo_handler(args.response_file.read_bytes())))


if __name__ == "__main__":
    main()
