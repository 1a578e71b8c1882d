"""The git history reader on real repositories made in the test (known files, known dates)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest.vcs.git_log import read_history
from tests._git import git, init, touch

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / "ws" / "lib").mkdir(parents=True)
    (r / "ws" / "lib" / "a.cc").write_text("int a;\n")
    init(r, "2026-01-01")
    for day in ("2026-02-02", "2026-02-09", "2026-02-16"):
        touch(r, ["ws/lib/a.cc"], day)
    touch(r, ["elsewhere/b.cc"], "2026-02-20")
    touch(r, ["ws/lib/new line\nname.cc", "ws/lib/sp ace.cc"], "2026-03-01")
    return r


def test_window_ends_at_the_newest_commit_and_counts_each_commit(repo: Path) -> None:
    h = read_history(repo / "ws", 30)
    assert h is not None
    assert (h.until, h.anchor, h.days) == ("2026-03-01", "newest commit", 30)
    # 30 days to 2026-03-01 reach back to 2026-01-30: the three weekly edits, the odd names;
    # the commit outside the workspace lists no file of it and is left out.
    dates = [c.date for c in h.commits]
    assert dates == ["2026-03-01", "2026-02-16", "2026-02-09", "2026-02-02"]
    assert h.commits[0].files == ("lib/new line\nname.cc", "lib/sp ace.cc")
    assert all(c.files == ("lib/a.cc",) for c in h.commits[1:])
    assert h.covered_days == 30.0
    assert h.scale == pytest.approx(3.0)


def test_a_young_history_scales_from_the_days_it_covers(repo: Path) -> None:
    h = read_history(repo / "ws", 365)
    assert h is not None
    assert len(h.commits) == 5  # the import commit too
    # From the first commit (2026-01-01 12:00) to the newest (2026-03-01 12:00).
    assert h.covered_days == pytest.approx(59.0, abs=0.001)
    assert h.scale == pytest.approx(90 / 59.0, rel=1e-3)
    assert "history covers" in h.phrase


def test_until_a_given_date(repo: Path) -> None:
    h = read_history(repo / "ws", 10, until="2026-02-10")
    assert h is not None
    assert h.anchor == "given"
    assert [c.date for c in h.commits] == ["2026-02-09", "2026-02-02"]


def test_bad_until_is_one_line_error(repo: Path) -> None:
    with pytest.raises(InputError, match="expected a date YYYY-MM-DD"):
        read_history(repo / "ws", 10, until="last tuesday")


def test_not_a_git_work_tree(tmp_path: Path) -> None:
    assert read_history(tmp_path, 90) is None


def test_merges_list_no_files_of_their_own(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    touch(repo, ["ws/lib/c.cc"], "2026-03-02")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "side", date="2026-03-03")
    h = read_history(repo / "ws", 5)
    assert h is not None
    assert [(c.date, c.files) for c in h.commits if c.files] == [
        ("2026-03-02", ("lib/c.cc",)),
        ("2026-03-01", ("lib/new line\nname.cc", "lib/sp ace.cc")),
    ]


def test_a_history_past_the_limit_is_a_one_line_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slim.ingest.vcs import git_log

    monkeypatch.setattr(git_log, "MAX_OUTPUT", 64)
    with pytest.raises(InputError) as err:
        read_history(repo / "ws", 365)
    msg = str(err.value)
    assert msg.startswith(f"git log of {(repo / 'ws').as_posix()}: expected a history of at most")
    assert "\n" not in msg
