"""The estimator tests' torch threads.

Under pytest-xdist the workers already keep the cores busy, and torch's intra-op threads on top of them only
add overhead: the tiny training of ``test_estimator.py`` took 118 CPU-seconds with torch's default two threads
and 96 with one (measured alone on the 2-core machine CI runs on). A worker trains on one thread; a run
without workers (``-n 0``) keeps torch's default.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread_per_worker(worker_id: str) -> Iterator[None]:
    if worker_id == "master":
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
