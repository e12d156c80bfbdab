"""Pictures of the board for an environment's ``render()``: one owner for the
``rgb_array`` / ``human`` logic that the AEC env and the single-agent env share.
matplotlib (the ``render`` extra) is imported only when a picture is asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules.engine import Game
from ..rules.state import GameState

__all__ = ["draw_frame"]


def draw_frame(renderer: Any, game: Game, mode: str, state: GameState, last_move: str) -> tuple[Any, np.ndarray | None]:
    """Draw ``state`` for ``render_mode`` ``mode`` (``"rgb_array"`` or ``"human"``).

    Args:
        renderer: the env's :class:`~risk_env.records.draw.BoardRenderer` from an earlier
            call, or None (one is made).
        game, state, last_move: what to draw; ``last_move`` is the text of the last move.

    Returns:
        ``(renderer, frame)``: the renderer to keep for the next call, and the picture as
        uint8 ``(H, W, 3)`` for ``"rgb_array"``; None for ``"human"`` (the frame is shown in
        a window, or skipped with one warning when no display can open).

    Raises:
        MissingExtraError: matplotlib is not installed (``pip install 'risk_env[render]'``).
    """
    from . import draw

    if renderer is None:
        renderer = draw.BoardRenderer(game)
    if mode == "human" and not renderer.can_show:
        return renderer, None  # no display: warned once by show(); skip drawing
    frame = renderer.draw(state, last_move)
    if mode == "rgb_array":
        return renderer, frame
    renderer.show(frame)
    return renderer, None
