"""The `bio-mcp serve` process: one ready line, and a prompt stop on the first SIGINT or SIGTERM.

Both transports log a ``ready`` line (JSON, on stderr like every log line) once they accept
clients, and a ``stopping`` line on the first Ctrl-C (SIGINT) or SIGTERM. On stdio the runtime
then gets `CLOSE_TIMEOUT_S` to close its clients and the process exits without waiting for worker
threads, which may be blocked reading a terminal or finishing an embedding batch: nothing is lost,
since every store write is a transaction and the model is prepared atomically. Over HTTP the
signal starts uvicorn's graceful shutdown, bounded by `HTTP_GRACEFUL_SHUTDOWN_S` because a client's
open event stream would otherwise hold it forever; a second signal exits at once.

Once the stdio client has gone, or the HTTP server has stopped, and the runtime is closed, the
process exits without joining its worker threads either: they may still be warming up the corpus,
the embedding model or a linker for clients that will not come, and a one-shot client (the
Inspector CLI starts a server per call) waited seconds for them after every call.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskStatus

from bio_mcp import __version__
from bio_mcp.collector import settle_collector
from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError
from bio_mcp.logs import get_logger, log_event
from bio_mcp.pickle_cache import build_elsewhere
from bio_mcp.server.cache_builder import ChildCacheBuilder

if TYPE_CHECKING:
    import uvicorn

    from bio_mcp.server.runtime import Runtime
    from bio_mcp.server.toolset import Toolset

HTTP_GRACEFUL_SHUTDOWN_S = 3
CLOSE_TIMEOUT_S = 3
log = get_logger("serve")


class _Stop:
    """What a stop signal has to reach: the runtime to close, or the HTTP server to wind down."""

    def __init__(self) -> None:
        self.signal: str | None = None
        self.runtime: Runtime | None = None
        self.http: uvicorn.Server | None = None


async def _serve(settings: Settings, stop: _Stop) -> None:
    from bio_mcp.server.composition import build_toolsets, server_options
    from bio_mcp.server.runtime import Runtime

    async with Runtime(settings) as runtime:
        stop.runtime = runtime
        toolsets = build_toolsets(runtime)
        grpc_server = await _start_grpc(settings, runtime, toolsets)
        if settings.transport == "stdio":
            from bio_mcp.server.app import build_server

            server = build_server(toolsets, options=server_options(runtime))
            tools = await server.list_tools()
            log_event(
                log, logging.INFO, "ready", transport="stdio", version=__version__, tools=len(tools),
                toolsets=[toolset.name for toolset in toolsets], stop="Ctrl-C",
            )
            async with anyio.create_task_group() as group:
                group.start_soon(warm_up_then_freeze, runtime, toolsets)
                await server.run_stdio_async()
                group.cancel_scope.cancel()  # the client has gone: no corpus to warm up for
            await _stop_grpc(grpc_server)
            return
        import uvicorn

        from bio_mcp.server.http import MCP_PATH, build_http_app

        config = uvicorn.Config(
            build_http_app(settings, toolsets, server_options(runtime)),
            host=settings.http_host,
            port=settings.http_port,
            log_config=None,  # uvicorn's records go to our JSON handlers (logs.configure_logging)
            access_log=False,
            timeout_graceful_shutdown=HTTP_GRACEFUL_SHUTDOWN_S,
        )
        server = uvicorn.Server(config)
        stop.http = server

        async def announce() -> None:
            while not server.started and not server.should_exit:
                await anyio.sleep(0.05)
            if server.started:
                log_event(
                    log, logging.INFO, "ready", transport="http", version=__version__,
                    url=f"http://{settings.http_host}:{settings.http_port}{MCP_PATH}",
                    toolsets=[toolset.name for toolset in toolsets], stop="Ctrl-C",
                )

        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            group.start_soon(warm_up_then_freeze, runtime, toolsets)
            await server.serve()
            group.cancel_scope.cancel()
        await _stop_grpc(grpc_server)


async def _start_grpc(settings: Settings, runtime: Runtime, toolsets: list[Toolset]) -> Any:
    """The gRPC read surface beside the MCP transport, when BIO_MCP_GRPC_PORT (--grpc-port) asks for it."""
    if settings.grpc_port is None:
        return None
    from bio_mcp.server.grpc import serve_grpc_beside

    return await serve_grpc_beside(settings, runtime, toolsets, settings.grpc_port)


async def _stop_grpc(server: Any) -> None:
    if server is not None:
        await server.stop(HTTP_GRACEFUL_SHUTDOWN_S)


async def warm_up_then_freeze(runtime: Runtime, toolsets: list[Toolset]) -> None:
    """Warm the runtime up, then settle the garbage collector (`bio_mcp/collector.py`).

    What exists once the server is up (modules, the server, the corpus's index and MeSH linker)
    lives as long as the process, and a full pass over it stops the whole process: 0.45 s of wall
    time for the pubmed toolset alone on a 2-core machine at load 13. A process stopped while it
    holds an NCBI rate-limit slot keeps every replica from NCBI meanwhile (a Redis monitor of
    bench/ratelimit_replicas.py showed slots pending for up to 1.9 s instead of ~0.1 s).
    """
    started = time.perf_counter()
    await runtime.warm_up(toolsets)
    settle_collector()
    log_event(log, logging.INFO, "warmed up", seconds=round(time.perf_counter() - started, 2))


def _exit_now() -> None:
    logging.shutdown()
    sys.stderr.flush()
    os._exit(0)


async def _stop_on_signal(stop: _Stop, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        task_status.started()
        async for signum in signals:
            first = stop.signal is None
            stop.signal = signal.Signals(signum).name
            if first:
                log_event(log, logging.INFO, "stopping", signal=stop.signal)
            if stop.http is not None and first:
                stop.http.should_exit = True  # uvicorn's graceful shutdown; serve() then returns
                continue
            # stdio (or a second signal): the stdin reader blocks in a thread until input arrives,
            # so the server task cannot finish by itself. Close the clients, then leave; the
            # timer bounds the close, which may wait for a store being opened or an embedding batch.
            threading.Timer(CLOSE_TIMEOUT_S, _exit_now).start()
            if stop.runtime is not None:
                await stop.runtime.aclose()
            _exit_now()


def run_server(settings: Settings) -> None:
    """Serves until the client leaves (stdio), or until the first SIGINT or SIGTERM."""
    # The compiled vocabularies a fresh cache lacks are built by a child, not in this long-lived
    # process (server/cache_builder.py).
    builder = ChildCacheBuilder(settings)
    build_elsewhere(builder)
    builder.start_on_a_fresh_cache()
    stop = _Stop()
    failures: list[BioMcpError] = []

    def stop_while_starting(signum: int, _frame: object) -> None:
        # Nothing has been opened yet: stop at once, quietly.
        log_event(log, logging.INFO, "stopping", signal=signal.Signals(signum).name)
        _exit_now()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop_while_starting)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            await group.start(_stop_on_signal, stop)
            try:
                await _serve(settings, stop)
            except BioMcpError as exc:  # raised as itself, not inside this group's ExceptionGroup
                failures.append(exc)
            else:
                _exit_now()  # leaving the event loop would join its worker threads (module docstring)
            group.cancel_scope.cancel()

    anyio.run(main)
    if failures:
        raise failures[0]
