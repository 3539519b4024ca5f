"""moto helpers: an S3 server bound to 127.0.0.1, dummy credentials, and atomic conditional PUTs.

Use :func:`moto_server` whenever another process (a Spark executor, a subprocess) must reach the
fake S3; in-process tests can use ``moto.mock_aws`` instead. Nothing here ever talks to AWS.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final
from unittest import mock

__all__ = ["DUMMY_AWS_ENV", "moto_server", "serialized_moto_s3"]

#: Environment for tests that build boto3 clients: fake credentials, a fixed region, no config
#: files, no instance metadata lookups and no proxy for the loopback moto server.
DUMMY_AWS_ENV: Final[Mapping[str, str]] = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_CONFIG_FILE": "/nonexistent/hudi-framework-tests/aws-config",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/hudi-framework-tests/aws-credentials",
    "AWS_EC2_METADATA_DISABLED": "true",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}

#: Host every test S3 server binds to; tests never talk to any other address.
LOOPBACK: Final = "127.0.0.1"


@contextmanager
def moto_server(port: int = 0) -> Iterator[str]:
    """Run ``moto.server.ThreadedMotoServer`` on 127.0.0.1 and yield its endpoint URL.

    Args:
        port: TCP port; 0 picks a free one (read back from the bound socket).

    Yields:
        The endpoint, such as ``http://127.0.0.1:50123``; pass it as ``endpoint_url``.

    The server shares moto's in-process state: ``mock_aws`` entered elsewhere in the same process
    resets it, so give each test its own bucket.
    """
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address=LOOPBACK, port=port, verbose=False)
    server.start()
    try:
        host, bound_port = server.get_host_and_port()
        yield f"http://{host}:{bound_port}"
    finally:
        server.stop()


@contextmanager
def serialized_moto_s3() -> Iterator[None]:
    """Make moto's S3 linearizable, as real S3 is, while the context is active.

    moto (checked with 5.2.1) is not safe under concurrent requests, in-process or as a server:

    * a conditional ``PutObject`` evaluates ``If-None-Match`` / ``If-Match`` and then stores the
      object in two unlocked steps, so two racing ``put_if_absent`` calls can both win (about 2
      rounds in 100 with 8 threads);
    * a ``GetObject`` racing an overwrite reads the replaced object's buffer after moto closed it
      (``ValueError: I/O operation on closed file``), and concurrent reads share one file position.

    This patch runs every S3 bucket- and object-level request of moto's responder under one lock,
    so concurrency tests exercise our backend rather than races in the fake.
    """
    from moto.s3.responses import S3Response

    lock = threading.RLock()

    def serialized(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def handler(self: S3Response, *args: Any, **kwargs: Any) -> Any:
            with lock:
                return original(self, *args, **kwargs)

        return handler

    with (
        mock.patch.object(S3Response, "key_response", serialized(S3Response.key_response)),
        mock.patch.object(S3Response, "bucket_response", serialized(S3Response.bucket_response)),
    ):
        yield
