"""Parsed-graph cache: a later query memory-maps arrays instead of parsing the export.

An entry is a directory of `.npy` arrays (forward and reverse CSR, a label blob with
offsets and a hash index, kind codes, packed locations of targets and of edges, srcs,
tags and attributes) plus a small msgpack blob and a manifest; a query maps the arrays
and decodes only the targets it touches. No pickle: a cache entry is data, never code.

The key is slim's version and code stamp, the format asked for, and each input's content
stamp: resolved path, size, mtime and a BLAKE2 hash of sampled blocks (the whole file
below 1 MiB), so a same-size edit with a restored mtime is still seen (in a CMake reply,
of the index and codemodel: its other files are named by their content's hash). An entry is checked
before use (the manifest's checksum, each file's size and sampled checksum, array shapes
and the CSR invariants); a damaged one is discarded with a one-line note on stderr and
rebuilt. Writers hold a per-key lock, so concurrent cold queries parse once; temporary
directories of writers that died are removed.

A graph-only query keeps, besides the export's line or member index, the closure graph it
read, in the same layout under the same key plus its roots (`KEY-closure-ROOTS`): the
next query on those roots maps it instead of decoding the closure again. An export keeps
its `CLOSURES_KEPT` most recently used closures; older ones are evicted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slim import __version__

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from slim.ingest.graph.buck2_scan import MemberIndex, Members
    from slim.model.columns import KeyIndex
    from slim.model.graph import BuildGraph

_FORMAT_VERSION = "5"
SAMPLE_BLOCK = 64 << 10
SAMPLES = 16
WHOLE_BELOW = 1 << 20
CLOSURES_KEPT = 16
"""Closure entries kept per export (the most recently used; a hit counts as a use)."""


def cache_dir() -> Path:
    """`$SLIM_CACHE_DIR` (also set by `slim --cache-dir`), else the user cache directory
    (platformdirs: `$XDG_CACHE_HOME/slim` or `~/.cache/slim` on Linux,
    `~/Library/Caches/slim` on macOS)."""
    base = os.environ.get("SLIM_CACHE_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_cache_dir("slim", appauthor=False))


def _code_files() -> list[Path]:
    """The sources whose change can change what an entry holds: every reader, the model,
    and the entry's own layout (this module and `graph_store`)."""
    here = Path(__file__).parent.parent
    return sorted(
        [
            *(here / "ingest").rglob("*.py"),
            *(here / "model").glob("*.py"),
            here / "infra" / "cache.py",
            here / "infra" / "graph_store.py",
        ]
    )


def _code_stamp() -> str:
    """The sources' stamps (path, mtime, size): an upgraded or edited slim never reads a
    stale entry."""
    here = Path(__file__).parent.parent
    parts = []
    for f in _code_files():
        st = f.stat()
        parts.append(f"{f.relative_to(here).as_posix()}:{st.st_mtime_ns}:{st.st_size}")
    return ",".join(parts)


def code_id() -> str:
    """What every entry this slim writes shares (its version, layout and code stamp); an
    entry with another one is stale and evicted when a new entry is written."""
    text = f"{_FORMAT_VERSION}|{__version__}|{_code_stamp()}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def sample_hash(path: Path, size: int, block: int = SAMPLE_BLOCK) -> str:
    """BLAKE2 of the whole file below 1 MiB, else of 16 evenly spaced blocks (first and
    last included) and the size."""
    h = hashlib.blake2b(str(size).encode(), digest_size=16)
    with path.open("rb") as f:
        if size <= WHOLE_BELOW:
            h.update(f.read())
            return h.hexdigest()
        for k in range(SAMPLES):
            f.seek((size - block) * k // (SAMPLES - 1))
            h.update(f.read(block))
    return h.hexdigest()


def input_stamp(path: Path) -> str:
    """What identifies an input's content: path, size, mtime and sampled hash (for a CMake
    reply directory, see `_reply_stamp`; any other directory is stamped by its path only:
    its read fails, and walking it could take minutes)."""
    rp = path.resolve()
    if rp.is_dir():
        from slim.ingest.graph.cmake_reply import reply_dir

        reply = reply_dir(rp)
        return _reply_stamp(rp, reply) if reply else str(rp)
    try:
        st = rp.stat()
        return f"{rp}\n|{st.st_size}|{st.st_mtime_ns}|{sample_hash(rp, st.st_size)}"
    except FileNotFoundError:
        return f"{rp}\n|gone"


def _reply_stamp(rp: Path, reply: Path) -> str:
    """A CMake reply directory: every file's name, size and mtime, and the sampled hash of
    the index and codemodel files. CMake names every other reply file by a hash of its
    content, so a changed target is a new name; one stat per file keeps a warm query on a
    reply of a hundred thousand targets well under a second."""
    parts = [str(rp)]
    prefix = reply.relative_to(rp).as_posix() + "/" if reply != rp else ""
    with os.scandir(reply) as it:
        entries = sorted((e for e in it if e.is_file()), key=lambda e: e.name)
    for e in entries:
        rel = prefix + e.name
        try:
            st = e.stat()
        except FileNotFoundError:
            parts.append(f"{rel}|gone")
            continue
        stamp = f"{rel}|{st.st_size}|{st.st_mtime_ns}"
        if e.name.startswith(("index-", "codemodel-")):
            stamp += f"|{sample_hash(Path(e.path), st.st_size)}"
        parts.append(stamp)
    return "\n".join(parts)


def cache_key(paths: Sequence[Path], fmt: str | None) -> str:
    h = hashlib.sha256(f"{code_id()}|{fmt}".encode())
    for p in paths:
        h.update(f"|{input_stamp(p)}".encode())
    return h.hexdigest()[:32]


def cache_family(paths: Sequence[Path], fmt: str | None) -> str:
    """The inputs an entry is for, whatever their content: a new entry of a family replaces
    the family's older ones (an export rewritten in place leaves no stale entry)."""
    text = "|".join([str(fmt), *(str(p.resolve()) for p in paths)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _graphs() -> Path:
    return cache_dir() / "graphs"


def _note(text: str) -> None:
    sys.stderr.write(f"slim: note: {text}\n")


# -- writing ----------------------------------------------------------------------------
def save(graph: BuildGraph, key: str, family: str = "", *, source: str = "", keep: int = 1) -> None:
    """Write the graph's entry (see `write_entry`)."""
    from slim.infra.graph_store import pack

    arrays, meta = pack(graph)
    info = {"nodes": len(graph), "edges": graph.edge_count}
    write_entry(key, arrays, meta, info, family, source=source, keep=keep)


def write_entry(
    key: str,
    arrays: dict[str, NDArray[Any]],
    meta: bytes,
    info: dict[str, Any],
    family: str = "",
    *,
    source: str = "",
    keep: int = 1,
) -> None:
    """Write an entry into a private temporary directory, rename it into place, then evict
    the entries it makes stale (see `evict`; `source` and `keep` are passed on)."""
    import shutil

    import numpy as np

    d = _graphs()
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / f".tmp-{key}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        files: dict[str, Any] = {}
        for name, arr in arrays.items():
            np.save(tmp / f"{name}.npy", arr, allow_pickle=False)
            files[f"{name}.npy"] = _file_record(tmp / f"{name}.npy")
        (tmp / "meta.msgpack").write_bytes(meta)
        files["meta.msgpack"] = _file_record(tmp / "meta.msgpack")
        head = {"key": key, "code": code_id(), "family": family, "source": source}
        body = json.dumps({**head, **info, "files": files})
        digest = hashlib.blake2b(body.encode(), digest_size=16).hexdigest()
        (tmp / "manifest.json").write_text(json.dumps({"body": body, "blake2b": digest}))
        final = d / key
        if final.exists():
            shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    evict(key, family, source=source, keep=keep)


def _standing(entry: Path, family: str, code: str, source: str) -> str:
    """What `entry` is to a new entry: stale (another slim's, damaged, or of `family` but
    not of `source`), a sibling (of `family` and of the same `source`: one of those
    `keep` bounds) or other."""
    try:
        outer = json.loads((entry / "manifest.json").read_text())
        manifest = json.loads(outer["body"])
    except (OSError, ValueError, KeyError, TypeError):
        return "stale"  # a format without these fields, or damaged
    if not isinstance(manifest, dict) or manifest.get("code") != code:
        return "stale"
    if not family or manifest.get("family") != family:
        return "other"
    return "sibling" if source and manifest.get("source") == source else "stale"


def _last_use(entry: Path) -> int:
    try:
        return (entry / "manifest.json").stat().st_mtime_ns
    except OSError:
        return 0


def evict(key: str, family: str, *, source: str = "", keep: int = 1) -> None:
    """Remove every entry another slim (version, layout or code) wrote; of `family`'s
    entries other than `key`, those of another `source` (an older content of the same
    inputs; every one when `source` is empty) and, of those of the same source, all but
    the `keep - 1` most recently used; with their lock files. An entry whose lock another
    process holds is left for later."""
    code = code_id()
    d = _graphs()
    siblings: list[tuple[int, str]] = []
    for entry in d.iterdir() if d.is_dir() else ():
        if not entry.is_dir() or entry.name == key or entry.name.startswith("."):
            continue
        standing = _standing(entry, family, code, source)
        if standing == "stale":
            _remove_entry(d, entry.name)
        elif standing == "sibling":
            siblings.append((_last_use(entry), entry.name))
    for _, name in sorted(siblings, reverse=True)[max(keep - 1, 0) :]:
        _remove_entry(d, name)
    for lock in d.glob("*.lock"):
        if not (d / lock.name[: -len(".lock")]).exists():
            _remove_entry(d, lock.name[: -len(".lock")])


def _remove_entry(d: Path, name: str) -> None:
    """Remove the entry `name` and its lock file, holding that lock (never one a writer or
    a waiting reader is using)."""
    import fcntl
    import shutil

    path = d / f"{name}.lock"
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        fd = -1
    except OSError:
        return
    try:
        if fd >= 0:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return
        shutil.rmtree(d / name, ignore_errors=True)
        if fd >= 0:
            with contextlib.suppress(OSError):
                path.unlink()
    finally:
        if fd >= 0:
            os.close(fd)


def _file_record(path: Path) -> dict[str, Any]:
    size = path.stat().st_size
    return {"size": size, "sample": sample_hash(path, size, 4096)}


# -- reading ----------------------------------------------------------------------------
class DamagedEntryError(Exception):
    """A cache entry that fails its checks (it is discarded and rebuilt)."""


def _manifest(entry: Path, only: Collection[str] | None = None) -> dict[str, Any]:
    """The entry's checked manifest: its own checksum, then the size and sampled checksum
    of each file it lists (of those in `only`, when given)."""
    try:
        outer = json.loads((entry / "manifest.json").read_text())
        body = outer["body"]
        ok = hashlib.blake2b(body.encode(), digest_size=16).hexdigest() == outer["blake2b"]
        manifest: dict[str, Any] = json.loads(body)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DamagedEntryError(f"unreadable manifest ({type(exc).__name__})") from None
    if not ok:
        raise DamagedEntryError("manifest checksum mismatch")
    for name, rec in manifest["files"].items():
        if only is not None and name not in only:
            continue
        path = entry / name
        try:
            size = path.stat().st_size
        except OSError:
            raise DamagedEntryError(f"{name} is missing") from None
        if size != rec["size"]:
            raise DamagedEntryError(f"{name} has {size} bytes, expected {rec['size']}")
        if sample_hash(path, size, 4096) != rec["sample"]:
            raise DamagedEntryError(f"{name} checksum mismatch")
    return manifest


def _arrays(entry: Path, manifest: dict[str, Any]) -> dict[str, NDArray[Any]]:
    import numpy as np

    out = {}
    for name in manifest["files"]:
        if name.endswith(".npy"):
            try:
                arr = np.load(entry / name, mmap_mode="r", allow_pickle=False)
                out[name[:-4]] = arr.view(np.ndarray)  # same pages, plain indexing
            except (OSError, ValueError) as exc:
                raise DamagedEntryError(f"{name}: {exc}") from None
    return out


def read_entry(key: str) -> tuple[dict[str, NDArray[Any]], bytes, dict[str, Any]] | None:
    """(arrays, metadata, manifest) of a checked entry; None when there is none or it was
    damaged (then discarded with a note)."""
    entry = _graphs() / key
    if not (entry / "manifest.json").exists():
        return None
    try:
        manifest = _manifest(entry)
        return _arrays(entry, manifest), (entry / "meta.msgpack").read_bytes(), manifest
    except DamagedEntryError as exc:
        _discard(entry, str(exc))
    except OSError as exc:
        _discard(entry, f"{type(exc).__name__}: {exc}")
    return None


def load(key: str) -> BuildGraph | None:
    """The cached graph for `key`, or None (a damaged entry is discarded with a note)."""
    from slim.infra.graph_store import unpack

    got = read_entry(key)
    if got is None:
        return None
    arrays, meta, manifest = got
    try:
        return unpack(arrays, meta, manifest["nodes"], manifest["edges"])
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        _discard(_graphs() / key, f"{type(exc).__name__}: {exc}")
    return None


def _discard(entry: Path, why: str) -> None:
    import shutil

    _note(f"discarded the damaged cache entry {entry} ({why}); rebuilding it")
    with contextlib.suppress(OSError):
        shutil.rmtree(entry)


# -- locking and stale temporaries -------------------------------------------------------
@contextlib.contextmanager
def writer_lock(key: str) -> Iterator[bool]:
    """Hold the key's lock (True), waiting for a concurrent writer; False when the cache
    directory cannot be written (the query then runs without the cache). A lock file an
    eviction removed while this process waited on it is opened again."""
    import fcntl

    try:
        d = _graphs()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{key}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
    except OSError:
        yield False
        return
    try:
        _clean_stale(d, key)
        yield True
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clean_stale(d: Path, key: str) -> None:
    """Temporaries of this key (its lock is ours, so their writer died) and of any key
    whose writer process is gone."""
    import shutil

    for tmp in d.glob(".tmp-*"):
        _, _, rest = tmp.name.partition("-")
        tkey, _, pid = rest.rpartition("-")
        if tkey == key or (pid.isdecimal() and not _pid_alive(int(pid))):
            with contextlib.suppress(OSError):
                shutil.rmtree(tmp) if tmp.is_dir() else tmp.unlink()
    for old in d.glob(".*.tmp"):  # format 2 (npz) temporaries
        pid = old.name.rsplit(".", 2)[-2]
        if pid.isdecimal() and not _pid_alive(int(pid)):
            with contextlib.suppress(OSError):
                old.unlink()


# -- the two ways a query gets its graph ---------------------------------------------------
def load_graph_cached(
    paths: Sequence[Path], fmt: str | None, *, use_cache: bool, background: bool = False
) -> BuildGraph:
    """Load graph exports, through the cache when `use_cache` (parsed once under the
    key's lock; written before the command goes on, so no process outlives it).
    `background` is accepted for callers of the old API and ignored."""
    from slim.ingest import load_graph

    if not use_cache:
        return load_graph(paths, fmt)
    key = cache_key(paths, fmt)
    graph = load(key)
    if graph is not None:
        return graph
    with writer_lock(key) as locked:
        graph = load(key) if locked else None
        if graph is None:
            graph = _parse_and_save(paths, fmt, key if locked else None)
    return graph


def _parse_and_save(paths: Sequence[Path], fmt: str | None, key: str | None) -> BuildGraph:
    """Parse, write the entry (when `key`), and go on from that entry, as every later
    query will: its label index and mapped arrays, the parsed objects freed. The cyclic
    GC stays off throughout: it would rescan millions of live objects while packing."""
    import gc

    from slim.ingest import load_graph

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        graph = load_graph(paths, fmt)
        if key is None:
            return graph
        try:
            save(graph, key, cache_family(paths, fmt))
        except OSError as exc:
            _note(f"could not write the graph cache ({exc.strerror or exc})")
            return graph
        return load(key) or graph
    finally:
        if was_enabled:
            gc.enable()


def load_closure_graph(
    path: Path, fmt: str | None, labels: Sequence[str], *, use_cache: bool
) -> BuildGraph | None:
    """A graph-only query's graph: the kept closure of `labels` when there is one, else
    the cached whole graph, else the closure of `labels` read from a streamed_jsonproto
    or Buck2 JSON export (and kept); None: parse it all."""
    if not path.is_file():
        return None
    if not use_cache:
        return _read_closure(path, fmt, labels, use_cache=False)
    from slim.model.labels import normalize_label

    source = cache_key([path], fmt)
    roots = tuple(normalize_label(lab) for lab in labels)
    key = closure_key(source, roots)
    graph = _load_closure(key, roots)
    if graph is None:
        graph = load(source)
        if graph is not None:
            return graph
        graph = _read_closure(path, fmt, labels, use_cache=True)
        if graph is not None:
            _save_closure(graph, key, f"{cache_family([path], fmt)}-closure", source)
    return graph


def closure_key(source: str, roots: Sequence[str]) -> str:
    """The entry of the closure of `roots` (normalized, in the order given: it numbers
    the graph's targets) read from the input whose key is `source`."""
    digest = hashlib.sha256("\n".join(roots).encode()).hexdigest()[:16]
    return f"{source}-closure-{digest}"


def _load_closure(key: str, roots: tuple[str, ...]) -> BuildGraph | None:
    """The kept closure graph of `key`, marked as just used (see `CLOSURES_KEPT`); one that
    is not of `roots` is discarded as damaged."""
    graph = load(key)
    if graph is None:
        return None
    entry = _graphs() / key
    if graph.closure_of != roots:
        _discard(entry, f"it holds the closure of {', '.join(graph.closure_of) or 'nothing'}")
        return None
    mark_used(key)
    return graph


def mark_used(key: str) -> None:
    """Count a query's use of a kept closure (the most recently used are kept)."""
    with contextlib.suppress(OSError):
        os.utime(_graphs() / key / "manifest.json")


def _save_closure(graph: BuildGraph, key: str, family: str, source: str) -> None:
    with writer_lock(key) as locked:
        if locked:
            try:
                save(graph, key, family, source=source, keep=CLOSURES_KEPT)
            except OSError as exc:
                _note(f"could not write the graph cache ({exc.strerror or exc})")


def _read_closure(
    path: Path, fmt: str | None, labels: Sequence[str], *, use_cache: bool
) -> BuildGraph | None:
    """The closure of `labels` decoded from the export (through its kept line or member
    index when `use_cache`); None when the export's format has no closure route."""
    from slim.ingest.graph import buck2_scan
    from slim.ingest.graph.bazel_closure import FORMAT, load_closure

    if fmt is None:
        from slim.ingest import detect

        fmt = detect(path, "graph").name
    if fmt == buck2_scan.FORMAT:
        members_key = f"{cache_key([path], fmt)}-members"
        members_family = f"{cache_family([path], fmt)}-members"
        return buck2_scan.load_closure(
            path,
            labels,
            cached_index=(lambda: _load_members(members_key)) if use_cache else None,
            keep_index=(lambda m: _save_members(members_key, members_family, m))
            if use_cache
            else None,
        )
    if fmt != FORMAT:
        return None
    index_key = f"{cache_key([path], fmt)}-lines"
    family = f"{cache_family([path], fmt)}-lines"
    return load_closure(
        path,
        labels,
        cached_index=(lambda: _load_index(index_key)) if use_cache else None,
        keep_index=(lambda index: _save_index(index_key, family, index)) if use_cache else None,
    )


def _load_index(key: str) -> KeyIndex | None:
    from slim.model.columns import KeyIndex

    got = read_entry(key)
    if got is None:
        return None
    arrays, _, _ = got
    try:
        return KeyIndex.unpack(arrays)
    except (ValueError, KeyError) as exc:
        _discard(_graphs() / key, f"{type(exc).__name__}: {exc}")
    return None


def _load_members(key: str) -> tuple[KeyIndex, Members] | None:
    """A Buck2 export's kept member index: labels -> member, and the members' ranges."""
    from slim.ingest.graph.buck2_scan import Members
    from slim.model.columns import KeyIndex

    got = read_entry(key)
    if got is None:
        return None
    arrays, meta, _ = got
    try:
        index = KeyIndex.unpack(arrays)
        starts, ends = arrays["starts"], arrays["ends"]
        if not (starts.shape == ends.shape and len(starts) >= len(index)):
            raise ValueError("member ranges do not fit the index")
        line = int(meta.decode() or "1")
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        _discard(_graphs() / key, f"{type(exc).__name__}: {exc}")
        return None
    return index, Members(starts, ends, [], line)  # type: ignore[arg-type]


def _save_members(key: str, family: str, index: MemberIndex) -> None:
    """Keep a Buck2 export's member index, so the next closure query skips the scan."""
    import numpy as np

    from slim.model.columns import KeyIndex

    arrays = KeyIndex.pack(index.labels)
    arrays["starts"] = np.frombuffer(index.starts, dtype=np.int64)
    arrays["ends"] = np.frombuffer(index.ends, dtype=np.int64)
    with writer_lock(key) as locked:
        if locked:
            try:
                write_entry(
                    key,
                    arrays,
                    str(index.line).encode(),
                    {"members": len(arrays["starts"])},
                    family,
                )
            except OSError as exc:
                _note(f"could not write the graph cache ({exc.strerror or exc})")


def _save_index(key: str, family: str, index: dict[bytes, int]) -> None:
    """Keep an export's line index, so the next closure query on it skips the scan."""
    from slim.model.columns import KeyIndex

    with writer_lock(key) as locked:
        if locked:
            try:
                write_entry(key, KeyIndex.pack(index), b"", {"lines": len(index)}, family)
            except OSError as exc:
                _note(f"could not write the graph cache ({exc.strerror or exc})")


def checked_entry(key: str, names: Collection[str]) -> tuple[Path, dict[str, Any]] | None:
    """(directory, manifest) of the entry for `key` when it holds `names` and they pass
    their checks; None otherwise. Nothing is discarded here: the caller falls back to
    `load`, which reports and rebuilds a damaged entry."""
    entry = _graphs() / key
    if not (entry / "manifest.json").exists():
        return None
    try:
        manifest = _manifest(entry, names)
    except DamagedEntryError:
        return None
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(n in files for n in names):
        return None
    return entry, manifest
