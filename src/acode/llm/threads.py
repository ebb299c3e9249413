"""How many threads llama.cpp gets when no setting says: the cores idle now.

llama.cpp's threads wait for each other at every layer; with more threads than free cores they mostly
wait: on 2 cores under load, 1 thread read a prompt at 39 tok/s and 2 threads at 7 tok/s. The thread
count does not change the numbers computed, only the speed.

"Idle now" is measured over a fifth of a second from /proc/stat. The load average it replaced lags by
a minute both ways: right after acode's own previous command (or a benchmark's previous run) an idle
2-core machine read as 1 busy core, so the model got 1 thread where 2 were free; a worker that has just
started reads as no load at all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

SAMPLE_SECONDS = 0.2
# /proc/stat's per-CPU fields: user nice system idle iowait irq softirq steal (guest time is in user).
_IDLE_FIELDS = (3, 4)
_COUNTED_FIELDS = 8


def usable_cores() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return set(range(os.cpu_count() or 1))


def read_proc_stat() -> str:
    with open("/proc/stat", encoding="ascii") as stat:
        return stat.read()


def cpu_times(stat: str, cores: set[int]) -> dict[int, tuple[int, int]]:
    """(idle, total) clock ticks of each of ``cores`` in the text of /proc/stat."""
    times = {}
    for line in stat.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit() or int(name[3:]) not in cores:
            continue
        fields = [int(value) for value in rest.split()[:_COUNTED_FIELDS]]
        times[int(name[3:])] = (sum(fields[i] for i in _IDLE_FIELDS), sum(fields))
    return times


def idle_cores(cores: set[int], window: float = SAMPLE_SECONDS,
               read: Callable[[], str] = read_proc_stat,
               sleep: Callable[[float], None] = time.sleep) -> float | None:
    """How many of ``cores`` were idle over the next ``window`` seconds; None where /proc/stat cannot
    be read or did not move."""
    try:
        before = cpu_times(read(), cores)
        sleep(window)
        after = cpu_times(read(), cores)
    except (OSError, ValueError):
        return None
    idle = 0.0
    for core, (idle_after, total_after) in after.items():
        idle_before, total_before = before.get(core, (idle_after, total_after))
        if total_after > total_before:
            idle += (idle_after - idle_before) / (total_after - total_before)
        else:
            return None  # no tick in the window: nothing measured
    return idle if after else None


def default_threads(measure: Callable[[set[int]], float | None] = idle_cores) -> int:
    """The cores idle now (the load average where /proc/stat cannot be read), at least 1."""
    cores = usable_cores()
    idle = measure(cores)
    if idle is None:
        try:
            idle = len(cores) - os.getloadavg()[0]
        except OSError:
            idle = float(len(cores))
    return max(1, min(len(cores), int(idle + 0.5)))
