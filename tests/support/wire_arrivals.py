"""When HTTP requests reached a port on the loopback interface, as the kernel stamped them.

A fake's own arrival log is stamped when its event loop gets to a request: on a busy machine that
is late, and several requests that came apart are stamped together. The kernel stamps each packet
as it is received, whatever the receiving process is doing. `WireCapture` reads the loopback
interface through an AF_PACKET socket (Linux, needs CAP_NET_RAW) in a process of its own and keeps
the receive time of every TCP segment to `port` whose payload starts a request (`GET /...`,
`POST /...`): one per request, since a request line always opens its first segment.

    with WireCapture(port) as capture:
        ...  # drive the service
    times = capture.times()  # CLOCK_MONOTONIC seconds, comparable with the fake's arrival log
"""

from __future__ import annotations

import ctypes
import multiprocessing
import socket
import struct
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from types import TracebackType
from typing import Self

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35  # linux/asm-generic/socket.h; the socket module does not export it
SO_ATTACH_FILTER = 26
SNAP_BYTES = 256
PACKET_HOST = 0  # addressed to this host: the receiving side of a loopback packet (not PACKET_OUTGOING)
ETHERNET_HEADER = 14
REQUEST_STARTS = (b"GET /", b"POST /")
# Kernel buffer for packets not read yet: the stamps are taken on receipt, so a reader that falls
# behind loses nothing as long as the buffer holds.
RECEIVE_BUFFER_BYTES = 64 * 1024 * 1024


def capture_permitted() -> bool:
    """Whether this process may open an AF_PACKET socket."""
    try:
        socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL)).close()
    except (OSError, AttributeError):
        return False
    return True


def _realtime_minus_monotonic() -> float:
    """The offset that turns a CLOCK_REALTIME stamp into CLOCK_MONOTONIC, from the tightest of a
    few readings taken back to back."""
    best: tuple[float, float] | None = None
    for _ in range(50):
        before = time.monotonic()
        real = time.time()
        after = time.monotonic()
        if best is None or after - before < best[0]:
            best = (after - before, real - (before + after) / 2)
    assert best is not None
    return best[1]


def request_start_port(frame: bytes) -> int | None:
    """The destination port of an IPv4 TCP segment whose payload opens an HTTP request, else None."""
    ip = frame[ETHERNET_HEADER:]
    if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != socket.IPPROTO_TCP:
        return None
    tcp = ip[(ip[0] & 0x0F) * 4 :]
    if len(tcp) < 20:
        return None
    payload = tcp[(tcp[12] >> 4) * 4 :]
    if not payload.startswith(REQUEST_STARTS):
        return None
    return struct.unpack("!H", tcp[2:4])[0]


def _tcp_to_port_filter(port: int) -> ctypes.Array[ctypes.c_char]:
    """Classic BPF for `ip and tcp dst port <port>` (what `tcpdump -dd` prints), keeping the first
    SNAP_BYTES of each frame: the kernel passes this process nothing else of the machine's loopback
    traffic."""
    program = [
        (0x28, 0, 0, 12), (0x15, 0, 8, 0x0800),  # ethertype IPv4
        (0x30, 0, 0, 23), (0x15, 0, 6, socket.IPPROTO_TCP),  # protocol TCP
        (0x28, 0, 0, 20), (0x45, 4, 0, 0x1FFF),  # not a later fragment
        (0xB1, 0, 0, 14), (0x48, 0, 0, 16), (0x15, 0, 1, port),  # TCP destination port
        (0x06, 0, 0, SNAP_BYTES), (0x06, 0, 0, 0),
    ]
    return ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *step) for step in program))


def _capture(port: int, ready: Event, stop: Event, out: Connection) -> None:
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER_BYTES)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    program = _tcp_to_port_filter(port)
    steps = ctypes.sizeof(program) // 8
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HL", steps, ctypes.addressof(program)))
    sock.bind(("lo", 0))
    sock.settimeout(0.1)
    offset = _realtime_minus_monotonic()
    times: list[float] = []
    stop_at: float | None = None
    ready.set()
    while True:
        if stop_at is None and stop.is_set():
            stop_at = time.monotonic()
        try:
            frame, ancillary, _flags, address = sock.recvmsg(SNAP_BYTES, 64)
        except TimeoutError:
            if stop_at is not None:
                break
            continue
        if address[2] != PACKET_HOST or request_start_port(frame) != port:
            continue
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds, nanoseconds = struct.unpack("qq", data[:16])
                times.append(seconds + nanoseconds / 1e9 - offset)
        # Whatever arrived before the stop has been read once a later packet shows up.
        if stop_at is not None and times and times[-1] > stop_at:
            break
    sock.close()
    out.send(sorted(times))


class WireCapture:
    """Kernel receive stamps of the requests to `port` on loopback, from a process of its own."""

    def __init__(self, port: int) -> None:
        self.port = port
        context = multiprocessing.get_context("spawn")
        self._ready = context.Event()
        self._stop = context.Event()
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_capture, args=(port, self._ready, self._stop, sender), daemon=True)
        self._times: list[float] | None = None

    def __enter__(self) -> Self:
        self._process.start()
        if not self._ready.wait(30):
            self._process.kill()
            raise RuntimeError("the wire capture did not start (is CAP_NET_RAW granted?)")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._receiver.poll(60):
            self._times = self._receiver.recv()
        self._process.join(10)

    def times(self) -> list[float]:
        """Every request start seen, in CLOCK_MONOTONIC seconds, sorted."""
        if self._times is None:
            raise RuntimeError("the capture has not ended")
        return self._times
