"""The model's default thread count: the cores idle over a short sample, not the lagging load average."""

from __future__ import annotations

import os

from acode.llm import threads
from acode.llm.threads import cpu_times, default_threads, idle_cores

# Two snapshots of a 3-core /proc/stat, 0.2 s apart: cpu0 idle the whole time, cpu1 busy the whole time,
# cpu2 half idle (one tick of iowait counts as idle). The aggregate "cpu" line must be ignored.
BEFORE = """cpu  900 0 300 9000 100 0 0 0 0 0
cpu0 100 0 100 3000 0 0 0 0 0 0
cpu1 700 0 100 3000 0 0 0 0 0 0
cpu2 100 0 100 3000 100 0 0 0 0 0
intr 12345
"""
AFTER = """cpu  950 0 300 9050 100 0 0 0 0 0
cpu0 100 0 100 3020 0 0 0 0 0 0
cpu1 720 0 100 3000 0 0 0 0 0 0
cpu2 110 0 100 3009 101 0 0 0 0 0
intr 12399
"""


def reader(*texts: str):
    queue = list(texts)
    return lambda: queue.pop(0)


def test_cpu_times_reads_only_the_cores_asked_for():
    assert cpu_times(BEFORE, {0, 2}) == {0: (3000, 3200), 2: (3100, 3300)}


def test_idle_cores_sums_each_cores_idle_share_over_the_window():
    slept = []
    idle = idle_cores({0, 1, 2}, window=0.2, read=reader(BEFORE, AFTER), sleep=slept.append)
    assert slept == [0.2]
    assert idle == 1.5  # cpu0 1.0 + cpu1 0.0 + cpu2 (9 idle + 1 iowait) / 20


def test_idle_cores_is_unknown_when_the_file_cannot_be_read_or_did_not_move():
    def missing():
        raise OSError("no /proc")

    assert idle_cores({0}, read=missing, sleep=lambda s: None) is None
    assert idle_cores({0}, read=reader(BEFORE, BEFORE), sleep=lambda s: None) is None
    assert idle_cores({7}, read=reader(BEFORE, AFTER), sleep=lambda s: None) is None


def test_default_threads_rounds_the_idle_cores_within_the_usable_ones(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (1.9, 1.9, 1.9))  # a minute of load that has ended
    assert default_threads(lambda cores: 1.6) == 2  # the load average alone would give 1
    assert default_threads(lambda cores: 0.4) == 1
    assert default_threads(lambda cores: 0.0) == 1
    assert default_threads(lambda cores: 5.0) == 2


def test_default_threads_falls_back_to_the_load_average(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: {0, 1, 2, 3})
    monkeypatch.setattr(os, "getloadavg", lambda: (2.7, 1.0, 1.0))
    assert default_threads(lambda cores: None) == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 1.0, 1.0))
    assert default_threads(lambda cores: None) == 4


def test_the_real_sample_on_this_machine_is_within_its_cores():
    cores = threads.usable_cores()
    idle = idle_cores(cores, window=0.05)
    assert idle is None or 0.0 <= idle <= len(cores)
    assert 1 <= default_threads() <= len(cores)
