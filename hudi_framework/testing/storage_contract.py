"""The storage contract suite: behaviour every :class:`StorageBackend` must show.

Plugin authors subclass :class:`StorageBackendContract` in a ``Test*`` class and provide a
``backend`` fixture that returns an *empty* backend::

    class TestMyBackend(StorageBackendContract):
        @pytest.fixture
        def backend(self, tmp_path: Path) -> StorageBackend:
            return MyBackend(str(tmp_path))

Every test asserts observable behaviour through the contract only, so the same suite runs on local
disk, in memory, on moto in-process and on a moto server.
"""

from __future__ import annotations

import datetime as dt
import functools
import gc
import threading
from collections.abc import Callable
from typing import ClassVar, Final

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import InvalidStorageKeyError, PreconditionFailedError, StorageNotFoundError

__all__ = ["UNSAFE_KEYS", "StorageBackendContract"]

#: Keys every backend must reject before any I/O: empty, ``.``/``..`` and empty segments, absolute
#: paths, trailing slashes, NUL and other control characters, backslashes.
UNSAFE_KEYS: Final = (
    "",
    ".",
    "..",
    "../escape",
    "a/../../escape",
    "a/./b",
    "./a",
    "a//b",
    "/etc/passwd",
    "a/",
    "a\x00b",
    "a\nb",
    "a\rb",
    "a\tb",
    "a\x1bb",
    "a\x7fb",
    "a\\b",
    "..\\escape",
)

_KEY_OPERATIONS: Final[dict[str, Callable[[StorageBackend, str], object]]] = {
    "read": lambda b, k: b.read(k),
    "read_versioned": lambda b, k: b.read_versioned(k),
    "write": lambda b, k: b.write(k, b"x"),
    "put_if_absent": lambda b, k: b.put_if_absent(k, b"x"),
    "compare_and_swap": lambda b, k: b.compare_and_swap(k, b"x", "v"),
    "open_input": lambda b, k: b.open_input(k),
    "open_output": lambda b, k: b.open_output(k),
    "delete": lambda b, k: b.delete(k),
    "delete_tree": lambda b, k: b.delete_tree(k),
    "exists": lambda b, k: b.exists(k),
    "info": lambda b, k: b.info(k),
    "size": lambda b, k: b.size(k),
}

_PREFIX_OPERATIONS: Final[dict[str, Callable[[StorageBackend, str], object]]] = {
    "list": lambda b, k: b.list(k),
    "list_recursive": lambda b, k: b.list(k, recursive=True),
    "list_dirs": lambda b, k: b.list_dirs(k),
    "list_incomplete": lambda b, k: b.list_incomplete(k, recursive=True),
}


def _race(n: int, fn: Callable[[int], object]) -> list[BaseException | object]:
    """Run ``fn(0..n-1)`` on ``n`` threads released together; return each result or exception."""
    barrier = threading.Barrier(n)
    results: list[BaseException | object] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = fn(i)
        except BaseException as e:
            results[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


class StorageBackendContract:
    """Contract tests; subclasses provide a ``backend`` fixture returning an empty backend."""

    #: Threads racing in the concurrency tests.
    concurrency: ClassVar[int] = 8

    @pytest.fixture
    def backend(self) -> StorageBackend:
        """Override in the subclass: an empty backend."""
        pytest.fail(f"{type(self).__name__} must define a `backend` fixture")

    # ------------------------------------------------------------------ round trips
    def test_write_then_read_round_trips(self, backend: StorageBackend) -> None:
        payload = bytes(range(256)) * 4
        backend.write("a.bin", payload)
        backend.write("nested/deeper/b.bin", b"b")
        backend.write("empty", b"")
        assert backend.read("a.bin") == payload
        assert backend.read("nested/deeper/b.bin") == b"b"
        assert backend.read("empty") == b""

    def test_read_many_keeps_the_order_of_keys(self, backend: StorageBackend) -> None:
        keys = [f"many/{i:02d}" for i in range(12)]
        for i, key in enumerate(keys):
            backend.write(key, bytes([i]) * (i + 1))
        order = [*reversed(keys), keys[3]]
        assert backend.read_many(order) == [backend.read(key) for key in order]
        assert backend.read_many([]) == []
        with pytest.raises(StorageNotFoundError):
            backend.read_many([keys[0], "many/missing", keys[1]])

    def test_write_replaces_whole_object(self, backend: StorageBackend) -> None:
        backend.write("k", b"first version, longer")
        backend.write("k", b"second")
        assert backend.read("k") == b"second"
        assert backend.size("k") == len(b"second")

    def test_unicode_and_spaces_in_keys(self, backend: StorageBackend) -> None:
        key = "dir with space/ünïcødé €.txt"
        backend.write(key, b"u")
        assert backend.read(key) == b"u"
        assert [f.key for f in backend.list("dir with space")] == [key]

    @pytest.mark.parametrize("key", ["q?x", "h#x", "p%2Fx", "c:x", "s;x", "a+b=c"])
    def test_special_characters_round_trip_or_are_rejected_never_aliased(
        self, backend: StorageBackend, key: str
    ) -> None:
        try:
            backend.write(key, key.encode())
        except InvalidStorageKeyError:
            assert backend.list("", recursive=True) == []
            return
        assert backend.read(key) == key.encode()
        assert [f.key for f in backend.list("")] == [key]

    def test_uri_names_the_key_under_the_root(self, backend: StorageBackend) -> None:
        uri = backend.uri("a/b.txt")
        assert uri.startswith(backend.root_uri.rstrip("/") + "/")
        assert uri.endswith("/a/b.txt")

    # ------------------------------------------------------------------ missing objects
    def test_missing_object_raises_not_found(self, backend: StorageBackend) -> None:
        ops: list[Callable[[], object]] = [
            lambda: backend.read("missing"),
            lambda: backend.read_versioned("missing"),
            lambda: backend.info("missing"),
            lambda: backend.size("missing"),
            lambda: backend.open_input("missing"),
            lambda: backend.delete("missing", missing_ok=False),
            lambda: backend.read("no/such/dir/file"),
        ]
        for op in ops:
            with pytest.raises(StorageNotFoundError) as info:
                op()
            assert isinstance(info.value, FileNotFoundError)
        assert backend.exists("missing") is False

    def test_a_directory_is_not_an_object(self, backend: StorageBackend) -> None:
        backend.write("d/x", b"x")
        assert backend.exists("d") is False
        for op in (backend.read, backend.info, backend.size, backend.open_input):
            with pytest.raises(StorageNotFoundError):
                op("d")
        backend.delete("d")
        with pytest.raises(StorageNotFoundError):
            backend.delete("d", missing_ok=False)
        assert backend.read("d/x") == b"x"

    # ------------------------------------------------------------------ atomic replace
    def test_readers_never_see_a_partial_replace(self, backend: StorageBackend) -> None:
        versions = (b"a" * 200_000, b"b" * 300_000)
        backend.write("hot", versions[0])
        backend.write("cold", b"still here")
        stop = threading.Event()
        seen: list[bytes] = []

        def writer() -> None:
            for i in range(12):
                backend.write("hot", versions[i % 2])
            stop.set()

        thread = threading.Thread(target=writer)
        thread.start()
        listings: list[list[str]] = []
        while not stop.is_set() or not seen:
            seen.append(backend.read("hot"))
            listings.append(sorted(f.key for f in backend.list("")))
        thread.join()
        assert all(s in versions for s in seen)
        # Listings taken mid-write show the object, never a temporary file beside it.
        assert all(keys == ["cold", "hot"] for keys in listings), listings

    # ------------------------------------------------------------------ put_if_absent
    def test_put_if_absent_creates_once(self, backend: StorageBackend) -> None:
        version = backend.put_if_absent("lock", b"first")
        with pytest.raises(PreconditionFailedError):
            backend.put_if_absent("lock", b"second")
        current = backend.read_versioned("lock")
        assert current.data == b"first"
        assert current.version == version

    def test_put_if_absent_fails_on_written_object(self, backend: StorageBackend) -> None:
        backend.write("k", b"plain")
        with pytest.raises(PreconditionFailedError):
            backend.put_if_absent("k", b"other")
        assert backend.read("k") == b"plain"

    def test_put_if_absent_has_exactly_one_winner(self, backend: StorageBackend) -> None:
        def attempt(key: str, i: int) -> str:
            return backend.put_if_absent(key, f"w{i}".encode())

        for round_no in range(3):
            key = f"race/{round_no}.commit"
            results = _race(self.concurrency, functools.partial(attempt, key))
            winners = [i for i, r in enumerate(results) if isinstance(r, str)]
            losers = [r for r in results if isinstance(r, PreconditionFailedError)]
            assert len(winners) == 1, results
            assert len(losers) == self.concurrency - 1, results
            assert backend.read(key) == f"w{winners[0]}".encode()

    # ------------------------------------------------------------------ compare_and_swap
    def test_compare_and_swap_replaces_matching_version(self, backend: StorageBackend) -> None:
        backend.write("ptr", b"v1")
        old = backend.read_versioned("ptr").version
        new = backend.compare_and_swap("ptr", b"v2", old)
        assert new != old
        current = backend.read_versioned("ptr")
        assert current.data == b"v2"
        assert current.version == new

    def test_compare_and_swap_rejects_stale_version(self, backend: StorageBackend) -> None:
        backend.write("ptr", b"v1")
        stale = backend.read_versioned("ptr").version
        backend.write("ptr", b"someone else")
        with pytest.raises(PreconditionFailedError):
            backend.compare_and_swap("ptr", b"mine", stale)
        assert backend.read("ptr") == b"someone else"

    def test_compare_and_swap_rejects_missing_object(self, backend: StorageBackend) -> None:
        backend.write("ptr", b"v1")
        version = backend.read_versioned("ptr").version
        backend.delete("ptr")
        with pytest.raises(PreconditionFailedError):
            backend.compare_and_swap("ptr", b"v2", version)
        assert backend.exists("ptr") is False

    def test_compare_and_swap_has_exactly_one_winner(self, backend: StorageBackend) -> None:
        backend.write("ptr", b"start")
        version = backend.read_versioned("ptr").version
        results = _race(self.concurrency, lambda i: backend.compare_and_swap("ptr", f"w{i}".encode(), version))
        winners = [i for i, r in enumerate(results) if isinstance(r, str)]
        assert len(winners) == 1, results
        assert all(isinstance(r, PreconditionFailedError) for i, r in enumerate(results) if i != winners[0])
        assert backend.read("ptr") == f"w{winners[0]}".encode()

    def test_compare_and_swap_loses_no_update(self, backend: StorageBackend) -> None:
        backend.write("counter", b"0")
        per_thread = 4

        def increment(_: int) -> None:
            done = 0
            while done < per_thread:
                current = backend.read_versioned("counter")
                try:
                    backend.compare_and_swap("counter", str(int(current.data) + 1).encode(), current.version)
                except PreconditionFailedError:
                    continue
                done += 1

        threads = 4
        results = _race(threads, increment)
        assert not [r for r in results if isinstance(r, BaseException)], results
        assert backend.read("counter") == str(threads * per_thread).encode()

    # ------------------------------------------------------------------ listing
    @pytest.fixture
    def tree(self, backend: StorageBackend) -> StorageBackend:
        for key in ("a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "d2/g.txt"):
            backend.write(key, key.encode())
        return backend

    def test_list_root_gives_direct_objects_only(self, tree: StorageBackend) -> None:
        assert sorted(f.key for f in tree.list()) == ["a.txt", "b.txt"]

    def test_list_recursive_gives_every_object(self, tree: StorageBackend) -> None:
        expected = ["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "d2/g.txt"]
        assert sorted(f.key for f in tree.list("", recursive=True)) == expected
        assert sorted(f.key for f in tree.list("d", recursive=True)) == ["d/c.txt", "d/e/f.txt"]

    def test_list_respects_directory_boundaries(self, tree: StorageBackend) -> None:
        # "d" must not match "d2/...".
        assert [f.key for f in tree.list("d")] == ["d/c.txt"]
        assert [f.key for f in tree.list("d/e")] == ["d/e/f.txt"]

    def test_list_dirs(self, tree: StorageBackend) -> None:
        assert sorted(tree.list_dirs()) == ["d", "d2"]
        assert tree.list_dirs("d") == ["d/e"]
        assert tree.list_dirs("d/e") == []

    def test_list_missing_prefix_is_empty(self, tree: StorageBackend) -> None:
        assert tree.list("nope") == []
        assert tree.list("nope", recursive=True) == []
        assert tree.list_dirs("nope") == []
        # A prefix naming an object, not a directory, has no children either.
        assert tree.list("a.txt") == []

    def test_listed_entries_have_size_and_utc_time(self, tree: StorageBackend) -> None:
        now = dt.datetime.now(dt.UTC)
        for info in tree.list("", recursive=True):
            assert info.size == len(info.key.encode())
            assert info.modified.tzinfo is not None
            assert abs(info.modified - now) < dt.timedelta(minutes=5)
            assert info.name == info.key.rsplit("/", 1)[-1]

    # ------------------------------------------------------------------ delete, exists, size
    def test_delete_is_idempotent(self, backend: StorageBackend) -> None:
        backend.write("d/x", b"x")
        backend.write("d/y", b"y")
        backend.delete("d/x")
        backend.delete("d/x")
        assert backend.exists("d/x") is False
        assert [f.key for f in backend.list("d")] == ["d/y"]
        with pytest.raises(StorageNotFoundError):
            backend.delete("d/x", missing_ok=False)

    def test_delete_tree_removes_the_directory_and_nothing_else(self, tree: StorageBackend) -> None:
        tree.delete_tree("d")
        assert sorted(f.key for f in tree.list("", recursive=True)) == ["a.txt", "b.txt", "d2/g.txt"]
        assert tree.list_dirs() == ["d2"], "no directory of the tree is left"
        assert tree.list_incomplete("", recursive=True) == []
        tree.delete_tree("d")  # already gone
        tree.delete_tree("nope")

    def test_delete_tree_never_deletes_the_root(self, tree: StorageBackend) -> None:
        with pytest.raises(InvalidStorageKeyError):
            tree.delete_tree("")
        assert len(tree.list("", recursive=True)) == 5

    def test_published_objects_are_not_incomplete_writes(self, tree: StorageBackend) -> None:
        with tree.open_output("d/streamed.bin") as out:
            out.write(b"data")
        assert tree.list_incomplete("", recursive=True) == []
        assert tree.list_incomplete("d") == []

    def test_exists_info_and_size(self, backend: StorageBackend) -> None:
        backend.write("f.bin", b"12345")
        assert backend.exists("f.bin") is True
        assert backend.size("f.bin") == 5
        info = backend.info("f.bin")
        assert (info.key, info.size, info.name) == ("f.bin", 5, "f.bin")
        assert info.modified.tzinfo is not None

    # ------------------------------------------------------------------ streams
    def test_open_output_publishes_on_close(self, backend: StorageBackend) -> None:
        backend.write("out.bin", b"old")
        out = backend.open_output("out.bin")
        out.write(b"new ")
        out.write(b"content")
        assert out.tell() == len(b"new content")
        assert backend.read("out.bin") == b"old"
        out.close()
        assert backend.read("out.bin") == b"new content"

    def test_open_output_is_invisible_until_close(self, backend: StorageBackend) -> None:
        with backend.open_output("fresh/out.bin") as out:
            out.write(b"data")
            assert backend.exists("fresh/out.bin") is False
            # Nor may a temporary file of the in-flight write show up in listings.
            assert backend.list("", recursive=True) == []
        assert backend.read("fresh/out.bin") == b"data"

    def test_abandoned_output_publishes_nothing(self, backend: StorageBackend) -> None:
        out = backend.open_output("abandoned.bin")
        out.write(b"half")
        del out
        gc.collect()
        assert backend.exists("abandoned.bin") is False

    def test_output_whose_block_raises_publishes_nothing(self, backend: StorageBackend) -> None:
        backend.write("kept.bin", b"old")

        def half_write(key: str) -> None:
            with backend.open_output(key) as out:
                out.write(b"half")
                raise RuntimeError("failed half-way")

        with pytest.raises(RuntimeError, match="half-way"):
            half_write("kept.bin")
        assert backend.read("kept.bin") == b"old"
        with pytest.raises(RuntimeError, match="half-way"):
            half_write("new.bin")
        assert backend.exists("new.bin") is False
        assert [info.key for info in backend.list("", recursive=True)] == ["kept.bin"]

    def test_open_input_is_random_access(self, backend: StorageBackend) -> None:
        payload = bytes(i % 251 for i in range(100_000))
        backend.write("big.bin", payload)
        with backend.open_input("big.bin") as f:
            assert f.size() == len(payload)
            f.seek(len(payload) - 10)
            assert f.read(10) == payload[-10:]
            f.seek(1000)
            assert f.read(5) == payload[1000:1005]
            assert f.tell() == 1005
            assert f.read_at(20, 50_000) == payload[50_000:50_020]
            f.seek(0)
            assert f.read() == payload

    def test_parquet_round_trip_through_streams(self, backend: StorageBackend) -> None:
        table = pa.table(
            {
                "id": pa.array(range(2000), pa.int64()),
                "name": pa.array([f"row-{i}" for i in range(2000)]),
                "score": pa.array([i * 0.5 for i in range(2000)]),
            }
        )
        with backend.open_output("part=1/file.parquet") as sink:
            pq.write_table(table, sink, row_group_size=500)
        with backend.open_input("part=1/file.parquet") as source:
            parquet = pq.ParquetFile(source)
            assert parquet.metadata.num_rows == 2000
            assert parquet.metadata.num_row_groups == 4
            assert parquet.read_row_group(2, columns=["id"]).column("id").to_pylist() == list(range(1000, 1500))
        with backend.open_input("part=1/file.parquet") as source:
            assert pq.read_table(source).equals(table)

    # ------------------------------------------------------------------ unsafe keys
    @pytest.mark.parametrize("key", UNSAFE_KEYS)
    def test_unsafe_keys_are_rejected(self, backend: StorageBackend, key: str) -> None:
        operations = dict(_KEY_OPERATIONS)
        operations["uri"] = lambda b, k: b.uri(k)
        if key:  # "" is the root, a valid prefix
            operations.update(_PREFIX_OPERATIONS)
        else:
            del operations["uri"]  # uri("") is the root URI
        accepted = [name for name, op in operations.items() if not _raises_invalid_key(op, backend, key)]
        assert accepted == [], f"{key!r} was not rejected by {accepted}"
        assert backend.list("", recursive=True) == []


def _raises_invalid_key(op: Callable[[StorageBackend, str], object], backend: StorageBackend, key: str) -> bool:
    try:
        op(backend, key)
    except InvalidStorageKeyError:
        return True
    return False
