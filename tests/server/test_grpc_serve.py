"""`bio-mcp serve --grpc-port`: the real process serves the gRPC read surface beside the MCP transport, under
the same bearer tokens, and says how to install grpcio or configure auth when it cannot."""

from __future__ import annotations

import subprocess
import sys

from bio_mcp.server.auth import mint_token
from tests.server.grpc_harness import bearer, grpc, json_of, pb, pb_grpc
from tests.server.test_transports import BIO_MCP, SECRET, free_port, server_env

RECORDED = "20412080"  # a real record the fake E-utilities serves (pubmed/MANIFEST.tsv)


def _wait_for_grpc(channel: grpc.Channel, proc: subprocess.Popen[bytes]) -> None:
    try:
        grpc.channel_ready_future(channel).result(timeout=90)  # a loaded machine takes seconds to import the server
    except grpc.FutureTimeoutError:
        proc.kill()
        raise AssertionError("the gRPC server did not start: " + proc.stderr.read().decode()[-2000:]) from None


def test_serve_answers_grpc_beside_the_http_transport(running_fakes, bio_home) -> None:
    port, grpc_port = free_port(), free_port()
    env = server_env(running_fakes, bio_home, MCP_AUTH_SECRET_KEY=SECRET, BIO_MCP_TOOLSETS="evidence",
                     BIO_MCP_EMBEDDINGS_PROVIDER="hash", NCBI_API_KEY="test-key")
    proc = subprocess.Popen([BIO_MCP, "serve", "--transport", "http", "--port", str(port), "--grpc-port", str(grpc_port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            _wait_for_grpc(channel, proc)
            stub = pb_grpc.EvidenceStub(channel)
            token = bearer(mint_token(SECRET))
            paper = json_of(stub.GetPaper(pb.PaperRequest(pmid=RECORDED), metadata=token, timeout=120))
            assert paper["pmid"] == RECORDED and paper["authors"] and paper["source"] == "eutils"
            assert paper["audit"]["status"] == "ok"
            search = json_of(stub.HybridSearch(pb.HybridSearchRequest(query="asthma"), metadata=token, timeout=120))
            assert search["audit"]["status"] == "ok" and search["lang"] == "en"
            try:
                stub.GetPaper(pb.PaperRequest(pmid=RECORDED), timeout=30)
            except grpc.RpcError as error:
                assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            else:
                raise AssertionError("a call without a token was answered")
    finally:
        proc.terminate()
        assert proc.wait(timeout=30) == 0


def test_serve_answers_grpc_beside_stdio_until_the_client_leaves(running_fakes, bio_home) -> None:
    grpc_port = free_port()
    # The MCP transport serves the pubmed toolset only: gRPC builds its own evidence toolset.
    env = server_env(running_fakes, bio_home, MCP_AUTH_SECRET_KEY=SECRET, BIO_MCP_EMBEDDINGS_PROVIDER="hash")
    proc = subprocess.Popen([BIO_MCP, "serve", "--grpc-port", str(grpc_port)], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            _wait_for_grpc(channel, proc)
            herb = json_of(pb_grpc.EvidenceStub(channel).GetHerb(
                pb.HerbRequest(id="garlic"), metadata=bearer(mint_token(SECRET)), timeout=120))
            assert herb["id"] == "mesh:D005737" and herb["names"]["en"] and herb["audit"]["status"] == "ok"
        assert proc.stdin is not None
        proc.stdin.close()  # the stdio client leaves: the server, gRPC with it, stops
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def _serve_fails(env: dict[str, str], *prelude: str) -> str:
    code = "import sys\n" + "".join(line + "\n" for line in prelude) + "from bio_mcp.cli import app\napp()\n"
    done = subprocess.run([sys.executable, "-c", code, "serve", "--grpc-port", str(free_port())], env=env, check=False,
                          capture_output=True, timeout=120)
    assert done.returncode != 0
    return " ".join(done.stderr.decode().split())


def test_serve_says_how_to_install_grpcio_or_configure_auth(running_fakes, bio_home) -> None:
    env = {**server_env(running_fakes, bio_home), "COLUMNS": "400"}
    # grpcio made unimportable, as in an install without the grpc extra.
    assert "needs grpcio: pip install 'bio-mcp[grpc]'" in _serve_fails(
        {**env, "MCP_AUTH_SECRET_KEY": SECRET}, "sys.modules['grpc'] = None")
    assert "the gRPC server requires bearer auth: set MCP_AUTH_SECRET_KEY" in _serve_fails(env)
    public = {**env, "MCP_AUTH_DISABLED": "true", "MCP_HTTP_HOST": "0.0.0.0"}
    assert "MCP_AUTH_DISABLED is only allowed on a loopback address" in _serve_fails(public)
