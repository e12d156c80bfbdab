"""Shared by the batched engine's tests: the torch device they run on, and one torch thread."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch

DEVICE = torch.device(os.environ.get("RISK_ENV_TEST_DEVICE", "cpu"))
"""``RISK_ENV_TEST_DEVICE=cuda`` runs the batched engine of these tests on a GPU (the reference engine
stays on the CPU)."""


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """Small batches run faster on one intra-op thread, and much faster on a busy machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
