"""The server as a process: sqlite restarts, health, reflection, SIGTERM, flags and env."""

from __future__ import annotations

from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from bezique.clients.sdk import AsyncTableClient
from bezique.service.config import parse_config
from tests.helpers import ServerProcess, spawn_server
from tests.service.helpers import two_seats


async def test_a_restarted_sqlite_server_serves_the_same_tables(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    store = f"sqlite:{tmp_path / 'tables.sqlite'}"
    first = spawn_server("--store", store, "--test-mode")
    server_process_factory.append(first)
    async with AsyncTableClient(first.address, retries=0) as client:
        table_id, ann, bob = await two_seats(client, seed=b"r" * 32)
        view = await client.view(table_id, ann.token)
        moved = await client.submit(ann, view.legal_moves[0], view.version, "before-restart")
        before = await client.view(table_id, bob.token)
    assert first.terminate() == 0
    second = spawn_server("--store", store)
    server_process_factory.append(second)
    async with AsyncTableClient(second.address, retries=0) as client:
        after = await client.view(table_id, bob.token)
        assert after.version == before.version == moved.version
        assert after == before
        again = await client.submit(ann, view.legal_moves[0], view.version, "before-restart")
        assert again.duplicate and again.version == moved.version
        follow = await client.submit(bob, after.legal_moves[0], after.version)
        assert follow.version == after.version + 1


async def test_health_and_reflection(server_process_factory: list[ServerProcess]) -> None:
    proc = spawn_server("--store", "memory:")
    server_process_factory.append(proc)
    async with grpc.aio.insecure_channel(proc.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "bezique.v1.TableService"):
            answer = await health.Check(health_pb2.HealthCheckRequest(service=service))
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        async for answer in stub.ServerReflectionInfo(iter([request])):
            names = {s.name for s in answer.list_services_response.service}
            break
    assert {"bezique.v1.TableService", "grpc.health.v1.Health"} <= names


def test_sigterm_shuts_down_cleanly(server_process_factory: list[ServerProcess]) -> None:
    proc = spawn_server("--store", "memory:")
    server_process_factory.append(proc)
    assert proc.terminate() == 0


def test_flags_override_environment_variables() -> None:
    env = {"BEZIQUE_STORE": "memory:", "BEZIQUE_TEST_MODE": "true", "BEZIQUE_MAX_TABLES": "7"}
    config = parse_config([], env)
    assert (config.store, config.test_mode, config.max_tables) == ("memory:", True, 7)
    config = parse_config(["--store", "sqlite:x.db", "--no-test-mode"], env)
    assert (config.store, config.test_mode) == ("sqlite:x.db", False)
    default = parse_config([], {})
    assert (default.address, default.store) == ("127.0.0.1:50051", "sqlite:data/bezique.sqlite")


async def test_environment_configures_a_process(
        tmp_path: Path, server_process_factory: list[ServerProcess]) -> None:
    proc = spawn_server(env={"BEZIQUE_STORE": "memory:", "BEZIQUE_TEST_MODE": "0",
                             "BEZIQUE_API_KEY": "platform-secret"})
    server_process_factory.append(proc)
    async with AsyncTableClient(proc.address, retries=0) as anonymous:
        try:
            await anonymous.create_table("highcard")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        else:
            raise AssertionError("CreateTable without the API key was accepted")
    async with AsyncTableClient(proc.address, retries=0, api_key="wrong") as wrong:
        try:
            await wrong.create_table("highcard")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    async with AsyncTableClient(proc.address, retries=0, api_key="platform-secret") as platform:
        assert (await platform.create_table("highcard")).table_id
