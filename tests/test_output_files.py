"""risk_env._output: an output file or folder is checked before any work without creating anything; the missing
folders are made only when every argument is checked (make_output_folder), or by the writer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from risk_env import ConfigError
from risk_env._output import check_output_file, folder_problem, make_output_folder


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_a_file_in_missing_folders_is_checked_without_making_them(tmp_path: Path) -> None:
    # (check_output_file made the folders: a caller refusing another argument afterwards left them behind)
    target = tmp_path / "a" / "b" / "rows.json"
    check_output_file(target, "--json")
    check_output_file(tmp_path / "rows.json", "--json")  # (in an existing folder: probed, removed again)
    assert _tree(tmp_path) == []
    make_output_folder(target, "--json")
    assert _tree(tmp_path) == ["a", "a/b"]
    make_output_folder(None, "--json")  # (none asked for)
    for slashed in ("rows.json/", "new/rows.json/"):  # (the benchmarks ran, then failed; watch wrote rows.json)
        with pytest.raises(ConfigError, match=f"^--json '{slashed}' is a folder; give a file name$"):
            check_output_file(slashed, "--json")
    for empty in ("", " "):  # (read as "none asked for": the run went on and wrote nothing)
        with pytest.raises(ConfigError) as e:
            check_output_file(empty, "--record")
        assert str(e.value) == f"--record {empty!r}: an empty file name; give a file name, or leave --record out"


@pytest.mark.parametrize(
    ("relative", "reason"),
    [
        ("blocker/rows.json", "Not a directory (it is a file)"),
        ("blocker/deeper/rows.json", "Not a directory ({blocker!r} is a file)"),
        ("new/" + "x" * 300 + "/rows.json", "File name too long ('xxxxxxxxxxxxxxxxxxxx...' is 300 bytes; at most 255)"),
    ],
)
def test_a_folder_that_cannot_be_made_is_refused_and_nothing_is_made(tmp_path: Path, relative: str, reason: str) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    target = tmp_path / relative
    with pytest.raises(ConfigError) as e:
        check_output_file(target, "--json")
    why = reason.format(blocker=str(blocker))
    assert str(e.value) == f"--json {str(target)!r}: cannot create the folder {str(target.parent)!r}: {why}"
    assert _tree(tmp_path) == ["blocker"]


def test_a_file_name_too_long_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "new" / ("x" * 300 + ".json")
    with pytest.raises(ConfigError) as e:
        check_output_file(target, "--json")
    assert str(e.value) == f"--json {str(target)!r}: cannot write the file: File name too long"
    with pytest.raises(ConfigError, match="is a folder; give a file name"):
        check_output_file(tmp_path, "--json")
    assert _tree(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_without_write_permission_is_refused(tmp_path: Path) -> None:  # pragma: no cover - not as root
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        assert folder_problem(locked / "new") == f"Permission denied (in {str(locked)!r})"
    finally:
        locked.chmod(0o700)


def test_folder_problem_names_nothing_where_a_folder_can_be_made_or_written(tmp_path: Path) -> None:
    assert folder_problem(tmp_path) is None and folder_problem(tmp_path / "x" / "y") is None
    assert folder_problem(f"{tmp_path}/a\0b") == "a path cannot hold a NUL character"
    assert folder_problem("") == folder_problem(" ") == "an empty folder name"  # (was the current folder, a folder ' ')
    assert _tree(tmp_path) == []
    # the folder written into is left as it was, its times too (a run refused after the check changed its mtime)
    os.utime(tmp_path, ns=(10**18, 10**18))
    for folder in (tmp_path, tmp_path / "new" / "deeper"):
        assert folder_problem(folder) is None
        assert (tmp_path.stat().st_atime_ns, tmp_path.stat().st_mtime_ns) == (10**18, 10**18)


@pytest.mark.parametrize("place", ["/proc/x/y", "/sys/kernel/a/b"])
def test_a_place_the_system_refuses_is_refused_for_an_output_file_too(place: str) -> None:
    # (one owner with the run folder's check: the permissions allowed /proc and /sys, the system did not)
    root = Path("/", Path(place).parts[1])
    if not root.is_dir():
        pytest.skip(f"no {root} here")
    why = folder_problem(place)
    assert why is not None and why.endswith(")") and " (in '/" in why
    with pytest.raises(ConfigError, match=f"^--json '{place}/rows.json': cannot create the folder '{place}': "):
        check_output_file(f"{place}/rows.json", "--json")
    assert not Path(place).exists()


def test_the_soak_checkpoint_makes_its_folder_when_it_writes(tmp_path: Path) -> None:
    # (risk-env soak --out new/s.json relied on the check to make new/)
    import json

    from risk_env.tools.soak import write_summary

    write_summary(tmp_path / "new" / "s.json", {"games": 1})
    assert json.loads((tmp_path / "new" / "s.json").read_text()) == {"games": 1} and _tree(tmp_path) == ["new", "new/s.json"]


def test_a_path_is_walked_as_the_system_walks_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ("new/sub/../x.png" passed the check read as text, "new/x.png", and the write failed after the game;
    # a link's ".." is the parent of its target, not of the link)
    monkeypatch.chdir(tmp_path)
    check_output_file("new/sub/../x.png", "--png")
    assert _tree(tmp_path) == []
    make_output_folder("new/sub/../x.png", "--png")
    Path("new/sub/../x.png").write_text("x")
    assert _tree(tmp_path) == ["new", "new/sub", "new/x.png"]
    if Path("/proc/self").is_dir():
        (tmp_path / "self").symlink_to("/proc/self")
        with pytest.raises(ConfigError) as e:
            check_output_file("self/../nx/x.json", "--record")
        assert str(e.value).startswith("--record 'self/../nx/x.json': cannot create the folder 'self/../nx': ")
        assert not Path("/proc/nx").exists()
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    assert folder_problem("gone") == "Not a directory (it is a link to nothing)"
    assert folder_problem("gone/x") == "Not a directory ('gone' is a link to nothing)"


def test_what_stands_in_a_folder_s_place_is_named(tmp_path: Path) -> None:
    # (/dev/null given as a run folder was called "a file")
    assert folder_problem("/dev/null") == "Not a directory (it is a device)"
    assert folder_problem("/dev/null/run") == "Not a directory ('/dev/null' is a device)"
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert folder_problem(pipe / "run") == f"Not a directory ({str(pipe)!r} is a named pipe)"
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    assert folder_problem(dangling / "run") == f"Not a directory ({str(dangling)!r} is a link to nothing)"
    assert _tree(tmp_path) == ["dangling", "pipe"]


def test_an_output_file_that_is_a_pipe_or_a_link_is_checked_without_waiting_or_harm(tmp_path: Path) -> None:
    # (a named pipe made the check wait for a reader forever; a link to a file yet to be made was replaced by the
    # check's probe file, and the file it named was left behind)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(ConfigError) as e:
        check_output_file(pipe, "--record")
    assert str(e.value) == f"--record {str(pipe)!r}: cannot write the file: a named pipe that nothing reads"
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # (one that something reads is written as usual)
    try:
        check_output_file(pipe, "--record")
    finally:
        os.close(reader)
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "made.json")
    check_output_file(link, "--json")  # (the write makes made.json through the link)
    assert link.is_symlink() and not (tmp_path / "made.json").exists()
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "gone" / "x.json")
    with pytest.raises(ConfigError) as e:
        check_output_file(dangling, "--json")
    assert (
        str(e.value)
        == f"--json {str(dangling)!r}: cannot write the file: it is a link to nothing ({str(tmp_path / 'gone' / 'x.json')!r})"
    )
    assert _tree(tmp_path) == ["dangling.json", "link.json", "pipe"]
    check_output_file("/dev/null", "--json")  # (a device takes the write)


def test_a_path_that_is_not_text_is_refused_with_the_library_s_error(tmp_path: Path) -> None:
    # (bytes or a number given as evaluate's out_dir was a TypeError)
    pytest.importorskip("openskill")
    from risk_env.tools.evaluation import evaluate

    for bad, shown in ((b"/tmp/x", "bytes b'/tmp/x'"), (123, "int 123")):
        with pytest.raises(ConfigError) as e:
            evaluate(["random", "random"], num_games=2, out_dir=bad, progress=False)  # type: ignore[arg-type]
        assert str(e.value) == f"out_dir: give a folder as text or a pathlib.Path, got {shown}"
        with pytest.raises(ConfigError) as e:
            check_output_file(bad, "--json")  # type: ignore[arg-type]
        assert str(e.value) == f"--json: give a file name as text or a pathlib.Path, got {shown}"
    assert _tree(tmp_path) == []


def test_a_file_that_must_be_given_refuses_none_where_the_check_reads_it_as_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (check_output_file(None) is "no file asked for"; the writers that need a file then took None to Path() or open():
    # BoardRenderer.save_png(s, None) and Position.save_svg(None) were raw TypeErrors)
    from risk_env._output import check_suffix, file_name_text, write_text_file
    from risk_env.records.record import GameRecord

    monkeypatch.chdir(tmp_path)
    check_output_file(None, "--json")
    for bad, shown in ((None, "NoneType None"), (b"x.svg", "bytes b'x.svg'"), (5, "int 5")):
        message = f"path: give a file name as text or a pathlib.Path, got {shown}"
        for call in (file_name_text, lambda path, option: check_suffix(path, option, ".svg", "SVG text")):
            with pytest.raises(ConfigError) as e:
                call(bad, "path")
            assert type(e.value) is ConfigError and str(e.value) == message
        with pytest.raises(ConfigError) as e:
            write_text_file(bad, "text", "path")  # type: ignore[arg-type]
        assert type(e.value) is ConfigError and str(e.value) == message
    with pytest.raises(ConfigError) as e:
        GameRecord.load(Path(__file__).resolve().parent.parent / "docs" / "board.json").save(None)  # type: ignore[arg-type]
    assert str(e.value) == "GameRecord.save: path: give a file name as text or a pathlib.Path, got NoneType None"
    assert _tree(tmp_path) == []
    assert file_name_text(tmp_path / "x.svg", "path") == str(tmp_path / "x.svg")
