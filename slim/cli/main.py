"""The click group and the console entry point: exit codes and one-line errors.

Exit codes: 0 ok, 1 findings at or above --fail-on, 2 bad input/usage/config,
4 internal error (re-run with --debug for the traceback).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from slim.errors import SlimError

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 4


def encode_output(text: str) -> bytes:
    """UTF-8, with raw input bytes (surrogate escapes) written as `\\udcXX`."""
    return text.encode("utf-8", "backslashreplace")


def write_output(text: str, output: Path | None) -> None:
    """Write to stdout, or atomically to `output` (never a partial file).

    Raw bytes of the inputs (a Latin-1 path or symbol, kept as surrogate escapes) are
    written as `\\udcXX`: every output stays valid UTF-8 (and JSON).
    """
    data = encode_output(text)
    if output is None:
        sys.stdout.write(data.decode("utf-8"))
        sys.stdout.flush()
        return
    from slim.infra.atomic import write_atomic

    write_atomic(output, data)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="slim-depgraph", prog_name="slim")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    default=None,
    metavar="DIR",
    help="Where the parsed-graph cache lives (default: $SLIM_CACHE_DIR, else the user "
    "cache directory).",
)
@click.pass_context
def cli(ctx: click.Context, debug: bool, cache_dir: str | None) -> None:
    """slim: find dead dependency edges in build graphs and propose how to cut them."""
    if cache_dir:
        before = os.environ.get("SLIM_CACHE_DIR")
        os.environ["SLIM_CACHE_DIR"] = os.path.abspath(cache_dir)

        def restore() -> None:
            if before is None:
                os.environ.pop("SLIM_CACHE_DIR", None)
            else:
                os.environ["SLIM_CACHE_DIR"] = before

        ctx.call_on_close(restore)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point: map errors to exit codes and one-line messages.

    Run as the `slim` command (no `argv`), the process ends with `os._exit` once its
    output is flushed and the exit handlers have run: every output file was already
    written (atomically) and every worker joined, and freeing a million-target graph
    object by object is seconds of teardown nobody waits for.
    """
    from slim.cli.blas import numpy_on_one_blas_thread

    numpy_on_one_blas_thread()
    if argv is not None:
        _main(list(argv))
        return
    try:
        _main(sys.argv[1:])
    except SystemExit as exc:
        _exit_now(exc.code)
    _exit_now(EXIT_OK)


def _exit_now(code: object) -> None:
    """End the process with `code` (as `sys.exit` would read it) without the interpreter's
    teardown."""
    import atexit

    if code is not None and not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code or 0)


def _main(args: list[str]) -> None:
    debug = "--debug" in args or bool(os.environ.get("SLIM_DEBUG"))
    try:
        rv = cli.main(args=args, prog_name="slim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("slim: interrupted", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_INPUT)
    except SlimError as exc:
        if debug:
            raise
        click.echo(f"slim: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("slim: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_OK)
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"slim: internal error: {type(exc).__name__}: {exc} "
            "(re-run with --debug for the traceback, and please report it)",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(rv if isinstance(rv, int) else EXIT_OK)
