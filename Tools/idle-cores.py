#!/usr/bin/env python3
"""Measures the core time a command leaves idle: how long, and by how many cores, fewer of its threads were ready to
run than the machine has cores. Unlike wall time, this barely depends on what else the machine runs: a thread that is
ready but waiting for a core busy with another process still counts as ready. So on a shared machine it says what a
quiet one would show: wall time is about (CPU time + idle core time) / cores.

Usage: python3 Tools/idle-cores.py [--cores N] [--detail] COMMAND [ARG...]
  --cores N   the cores to count against (default: this machine's)
  --detail    also print the idle core time per 100 ms of the run, and which thread was the only one ready when one was

Root (or perf_event_paranoid <= -1) and perf are needed: the command runs under `perf record -a` of the scheduler's
tracepoints (sched_switch, sched_wakeup, sched_wakeup_new, sched_process_exit); its output goes to /dev/null.
Prints one line: wall time, CPU time of the command's threads, idle core time. Exit codes: 0 measured, 1 perf or the
command failed, 2 usage error.
"""

import os
import re
import subprocess
import sys
import tempfile

EVENTS = "sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_process_exit"
LINE = re.compile(r"\s*(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)")
SWITCH = re.compile(r"prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> .* next_pid=(\d+)")
WOKEN = re.compile(r" pid=(\d+)")


def events(data):
    """The recorded events in time order: (time, process id, thread id, event name, its fields)."""
    text = subprocess.run(["perf", "script", "-i", data, "-F", "pid,tid,time,event,trace"], check=True,
                          capture_output=True, text=True).stdout
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            yield float(match[3]), int(match[1]), int(match[2]), match[4], match[5]


class Run:
    """The command's threads followed through the events: which are ready (running or waiting for a core)."""

    def __init__(self, cores):
        self.cores = cores
        self.root = None
        self.threads = set()
        self.ready = set()
        self.running = set()
        self.start = self.end = self.last = None
        self.cpu = self.idle = 0.0
        self.idle_by_tenth = {}
        self.alone = {}

    def elapse(self, now):
        if self.last is not None and self.start is not None and self.end is None:
            span = now - self.last
            ready = self.ready & self.threads
            self.cpu += len(self.running & self.threads) * span
            missing = max(0, self.cores - len(ready))
            self.idle += missing * span
            if missing:
                tenth = int((self.last - self.start) * 10)
                self.idle_by_tenth[tenth] = self.idle_by_tenth.get(tenth, 0) + missing * span
            if len(ready) == 1:
                (thread,) = ready
                self.alone[thread] = self.alone.get(thread, 0) + span
        self.last = now

    def take(self, now, pid, tid, name, fields):
        self.elapse(now)
        if self.root is None and name == "sched:sched_wakeup" and "comm=perf-exec" in fields:
            # perf forks the command as perf-exec and wakes it: that process is the one measured.
            self.root = int(WOKEN.search(fields)[1])
            self.threads.add(self.root)
            self.ready.add(self.root)
        if self.root is None:
            return
        if pid == self.root:
            self.threads.add(tid)
            if self.start is None:
                self.start = now
        if name == "sched:sched_wakeup_new" and tid in self.threads:
            child = int(WOKEN.search(fields)[1])
            self.threads.add(child)
            self.ready.add(child)
        elif name == "sched:sched_wakeup":
            self.ready.add(int(WOKEN.search(fields)[1]))
        elif name == "sched:sched_switch":
            previous, state, following = SWITCH.search(fields).groups()
            self.running.discard(int(previous))
            if not state.startswith("R"):  # asleep, not merely preempted
                self.ready.discard(int(previous))
            self.running.add(int(following))
            self.ready.add(int(following))
        elif name == "sched:sched_process_exit":
            self.ready.discard(tid)
            self.running.discard(tid)
            if tid == self.root:
                self.end = now


def main(arguments):
    cores = os.cpu_count() or 1
    detail = False
    while arguments and arguments[0].startswith("--"):
        option = arguments.pop(0)
        if option == "--cores" and arguments and arguments[0].isdigit() and int(arguments[0]) > 0:
            cores = int(arguments.pop(0))
        elif option == "--detail":
            detail = True
        else:
            print(f"idle-cores: unknown option '{option}'", file=sys.stderr)
            return 2
    if not arguments:
        print("usage: idle-cores.py [--cores N] [--detail] COMMAND [ARG...]", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "perf.data")
        recorded = subprocess.run(["perf", "record", "-q", "-a", "-e", EVENTS, "-o", data, "--", *arguments],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if recorded.returncode != 0:
            said = recorded.stderr.strip().splitlines()
            print(f"idle-cores: the command or perf failed (exit {recorded.returncode})"
                  + (f": {said[-1]}" if said else ""), file=sys.stderr)
            return 1
        run = Run(cores)
        for event in events(data):
            run.take(*event)
    if run.start is None:
        print("idle-cores: no scheduler event of the command was recorded", file=sys.stderr)
        return 1
    wall = (run.end or run.last) - run.start
    print(f"wall {wall:.3f} s, CPU {run.cpu:.3f} s, idle core time {run.idle:.3f} s on {cores} cores "
          f"((CPU + idle) / cores = {(run.cpu + run.idle) / cores:.3f} s)")
    if detail:
        print("idle core ms per 100 ms:",
              " ".join(f"{tenth}:{value * 1000:.0f}" for tenth, value in sorted(run.idle_by_tenth.items())))
        print("the only thread ready (ms):",
              " ".join(f"{thread}:{value * 1000:.0f}" for thread, value in
                       sorted(run.alone.items(), key=lambda item: -item[1])[:5]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
