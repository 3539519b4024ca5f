"""Writer ids written into leases, so holders can be told apart and named in errors."""

from __future__ import annotations

import os
import socket
import uuid


def new_owner_id() -> str:
    """A unique id for one writer: ``<host>/<pid>/<12 hex>``.

    Host and process make a stuck lease traceable to a machine; the random part keeps two writers
    of one process (two threads, two clients) distinct.
    """
    return f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:12]}"
