"""The games progress bar of the evaluations (:mod:`risk_env.tools.evaluation` and
:mod:`risk_env.tools.vector_evaluation`): a tqdm bar, or a silent stand-in when no bar is wanted or
tqdm (optional there) is not installed."""

from __future__ import annotations

from typing import Any

__all__ = ["NoBar", "progress_bar"]


class NoBar:
    """Stands in for a tqdm bar: ``update`` and ``close`` do nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int, progress: bool, desc: str = "games") -> Any:
    """A tqdm bar over ``total`` games labelled ``desc``; a :class:`NoBar` when ``progress`` is
    false or tqdm is missing."""
    if not progress:
        return NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return NoBar()
    return tqdm(total=total, desc=desc, unit="game", leave=False)
