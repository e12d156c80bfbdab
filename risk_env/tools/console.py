"""The ``risk-env`` console script: runs :func:`risk_env.tools.cli.main`.

The command line needs typer (the ``cli`` extra). Importing it here, rather than naming
``risk_env.tools.cli:main`` as the entry point, lets a missing typer end in one
``error:`` line naming the extra (exit status 1) instead of a traceback.
"""

from __future__ import annotations

import sys

from .._extras import missing_extra_message

__all__ = ["main"]


def main(argv: list[str] | None = None, command: str | None = None, prog_name: str | None = None) -> None:
    """Entry point of ``risk-env`` (``[project.scripts]``) and of the scripts in ``scripts/``, which run
    one command (``command``, see :func:`risk_env.tools.cli.main`).

    Raises:
        SystemExit: the command's exit status; 1 after ``error: ... pip install 'risk_env[cli]'``
            when typer is missing.
    """
    try:
        from .cli import main as cli_main
    except ImportError as e:
        message = missing_extra_message(e, "cli", "the risk-env command line")
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(1) from None
    cli_main(argv, command=command, prog_name=prog_name)


if __name__ == "__main__":
    main()
