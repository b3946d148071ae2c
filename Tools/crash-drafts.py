#!/usr/bin/env python3
"""Crash harness for drafts: runs `canvas-sim --draft` on seeded scripts, kills it with SIGKILL at random points, runs
it again (which restores the draft and continues), and checks every restore against an independent model of the board
written here from the rules table (not the package's transition function): the restored board must be the model's
board after a prefix of the killed run's accepted events that holds every event the run reported durable, with the
restore's own changes (a recording back in preview, takes whose file is missing marked missing) applied; takes whose
file is missing stay on their canvases, marked, until a delete, a new take or a `relink`; an armed undo stays armed
through a restore (the restore arms it again after its own marks). Takes may have several segments (`resume`); a
second `undo` removes the last one. Every step a run printed is checked against the model too (whether the event was
accepted, and the board after it), and so is what the cells show: a visible cell's take must be its canvas's.

usage: python3 Tools/crash-drafts.py [--kills N] [--seed S] [--binary PATH] [--snapshot-every K]
Exit status: 0 no mismatch, 1 a mismatch (the draft and scripts are kept under .fuzz/drafts/, and a later run moves
them aside to .fuzz/drafts-kept-N instead of removing them), 2 usage.
"""
import argparse
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time


class Model:
    """The board: each canvas's take (a tuple of its segments' file names, or None) and its segment marked missing (a
    file name or None), the selected canvas, whether it records (and whether that continues the take: `resume`), and
    the canvas whose undo is armed (or None)."""

    def __init__(self, count):
        self.takes = [None] * count
        self.missing = [None] * count
        self.selected = None
        self.recording = False
        self.resuming = False
        self.armed = None

    def copy(self):
        other = Model(0)
        other.takes = list(self.takes)
        other.missing = list(self.missing)
        other.selected = self.selected
        other.recording = self.recording
        other.resuming = self.resuming
        other.armed = self.armed
        return other

    def key(self):
        """Everything the board holds, to tell two boards apart."""
        return (tuple(self.takes), tuple(self.missing), self.selected, self.recording, self.resuming, self.armed)

    def end_recording(self):
        self.recording = False
        self.resuming = False

    def apply(self, event):
        """Applies one event (a tuple); returns True when accepted. Every accepted event but an undo disarms an armed
        undo."""
        accepted = self.rule(event)
        if accepted and event[0] != "undo":
            self.armed = None
        return accepted

    def rule(self, event):
        kind = event[0]
        n = len(self.takes)
        if kind == "tap":
            i = event[1]
            if not 0 <= i < n or self.recording:
                return False
            self.selected = None if self.selected == i else i
            return True
        if kind in ("record", "resume"):
            if self.selected is None or self.recording:
                return False
            # A take with a file marked missing is not continued.
            if kind == "resume" and (self.takes[self.selected] is None or self.missing[self.selected] is not None):
                return False
            self.recording = True
            self.resuming = kind == "resume"
            return True
        if kind == "stop":
            # A new take after `record`, the next segment after `resume`; a file of another take (or of the take being
            # continued) is refused.
            if not self.recording:
                return False
            name = event[1]
            own = self.takes[self.selected] or ()
            if any(name in take for j, take in enumerate(self.takes) if j != self.selected and take):
                return False
            if self.resuming and name in own:
                return False
            if self.resuming:
                self.takes[self.selected] = own + (name,)
            else:
                self.takes[self.selected] = (name,)
                self.missing[self.selected] = None
            self.end_recording()
            return True
        if kind == "cancel":
            if not self.recording:
                return False
            self.end_recording()
            return True
        if kind == "delete":
            i = event[1]
            if not 0 <= i < n or self.recording or self.takes[i] is None:
                return False
            self.takes[i] = None
            self.missing[i] = None
            return True
        if kind == "add":
            if self.recording:
                return False
            self.takes.append(None)
            self.missing.append(None)
            return True
        if kind == "undo":
            # The first arms it; the second in a row removes the take's last segment (and its mark).
            i = event[1]
            if not 0 <= i < n or self.recording or self.takes[i] is None:
                return False
            if self.armed == i:
                last = self.takes[i][-1]
                self.takes[i] = self.takes[i][:-1] or None
                if self.missing[i] == last:
                    self.missing[i] = None
                self.armed = None
            else:
                self.armed = i
            return True
        if kind == "disarm":
            return self.armed is not None
        if kind == "relink":
            # The app says the file is back; the board checks nothing on disk.
            i = event[1]
            if not 0 <= i < n or self.missing[i] is None:
                return False
            self.missing[i] = None
            return True
        if kind == "started":
            # The recorder's first sample: the board records when, nothing a restore shows.
            return self.recording
        if kind == "failed":
            if not self.recording:
                return False
            self.end_recording()
            return True
        if kind == "cut-short":
            # Ends as a stop with a file that stop accepts, as a cancel otherwise.
            if not self.recording:
                return False
            if len(event) > 2 and self.apply(("stop", event[2])):
                return True
            self.end_recording()
            return True
        if kind == "remove":
            i = event[1]
            if not 0 <= i < n or self.recording or n == 1:
                return False
            if self.selected == i:
                self.selected = None
            elif self.selected is not None and self.selected > i:
                self.selected -= 1
            self.takes.pop(i)
            self.missing.pop(i)
            return True
        raise ValueError(event)

    def recovered(self, exists):
        """The board as a restore leaves it: a recording back in preview; takes whose file is missing are reported,
        stay and are marked missing (only the app's delete removes them); a marked take whose file is back is
        relinked (its cover wanted); an armed undo stays armed (the restore arms it again after its own marks).
        Returns the board, the interrupted canvas (or None) and the kinds of the other
        effects in order (`missing` or `wanted`, by canvas)."""
        board = self.copy()
        interrupted = board.selected if board.recording else None
        board.end_recording()
        reports = []
        for i, take in enumerate(board.takes):
            if take is None:
                continue
            gone = first_gone(take, exists)
            if gone is not None:
                board.missing[i] = gone
                reports.append("missing")
            elif board.missing[i] is not None:
                board.missing[i] = None
                reports.append("wanted")
        return board, interrupted, reports

    def canvases(self):
        """The canvases as canvas-sim prints them (index, status, selected, the take's segments, the file marked
        missing, undo armed)."""
        result = []
        for i, take in enumerate(self.takes):
            status = "noPreview"
            if i == self.selected:
                status = "recording" if self.recording else "inPreview"
            result.append((i, status, i == self.selected, take or (), self.missing[i], i == self.armed))
        return result


def first_gone(take, exists):
    """The first segment of `take` whose file is missing (what a restore marks), or None."""
    return next((name for name in take if not exists(name)), None)


def restore_states(board, exists):
    """The boards a restore of `board` goes through as the writer writes its own records: `board` itself, then the
    board after the cancel of an interrupted recording, then after each mark of a take whose file is missing and not
    marked yet, and each relink of a marked take whose file is back, by canvas (the records canvas-sim journals for a
    restore, numbered after the restored one), then, when those disarmed an armed undo, after the undo that arms it
    again. A kill before the writer wrote them leaves an earlier board on the
    disk, and the next restore finds it and reports its effects again (a missing take is reported at every restore)."""
    states = [board.copy()]
    current = board.copy()
    if current.recording:
        current.end_recording()
        states.append(current.copy())
    for i, take in enumerate(current.takes):
        if take is None or first_gone(take, exists) == current.missing[i]:
            continue
        current.missing[i] = first_gone(take, exists)
        current.armed = None
        states.append(current.copy())
    if board.armed is not None and current.armed is None:
        current.armed = board.armed
        states.append(current.copy())
    return states


def effect_kinds(interrupted, reports):
    """The kinds of the effects a restore reports for a recording interrupted on canvas `interrupted` (or None) and the
    other reports (`missing`, `wanted`), in the order it reports them."""
    return (["interrupted"] if interrupted is not None else []) + reports


def check_restore(head, alternatives, ambiguous, exists):
    """Checks a restore's first line against the predictions for the run before: each of `alternatives` is (candidates,
    durable), where `candidates` maps record numbers to the model's board after them and `durable` is the last record
    that run reported durable; `ambiguous` says whether runs killed before they printed their restore came between.
    Returns (problem, boards found): every board the restore may have read from the disk (before its own records), or
    a one-line problem (the first alternative's) when no alternative explains it."""
    problem = shown_problem(head["canvases"])
    if problem:
        return f"the restore's cells: {problem}", []
    found = []
    for candidates, durable in alternatives:
        problem_here, boards = check_one(head, candidates, durable, ambiguous, exists)
        problem = problem or problem_here
        found += [board for board in boards if all(board.key() != other.key() for other in found)]
    return (None, found) if found else (problem, [])


def check_one(head, candidates, durable, ambiguous, exists):
    """`check_restore` against one prediction. Returns (problem, boards found)."""
    sequence = head["sequence"]
    shown = printed(head["canvases"])
    kinds = [e.split(" ")[1] for e in head["effects"] if not e.startswith("draft records dropped")]
    if sequence < durable:
        return f"restored record {sequence}, but {durable} were reported durable", []
    if ambiguous:
        # Each run killed before it printed its restore restored the same prefix and may have journaled some of that
        # restore's own records after it: the restored record is a prefix's (from the durable one on) plus those.
        # Boards that print alike may differ in marks the restore makes anyway, and so in how many records of its own
        # this restore wrote (which numbers the run's events): every one of them is kept, the next restore decides.
        found = [state for s, board in candidates.items() if s >= durable
                 for j, state in enumerate(restore_states(board, exists)) if s + j == sequence]
        recovered = [(state, state.recovered(exists)) for state in found]
        matches = [state for state, (board, *effects) in recovered
                   if board.canvases() == shown and effect_kinds(*effects) == kinds]
        if not matches:
            return (f"restored board {shown} with effects {head['effects']} is no prefix's from {durable} to "
                    f"{sequence} with some of its restore's records"), []
        return None, matches
    if sequence not in candidates:
        return f"restored record {sequence}, the run before has records {min(candidates)} to {max(candidates)}", []
    found = candidates[sequence]
    restored, interrupted, missing = found.recovered(exists)
    if shown != restored.canvases():
        return (f"restored board {shown} is not the model's after record {sequence}: {restored.canvases()}"), []
    if kinds != effect_kinds(interrupted, missing):
        return f"restore effects {head['effects']} do not match interrupted {interrupted}, missing {missing}", []
    return None, [found]


def predict(found, head, board, events, exists):
    """What the next restore may find after a run whose restore (`head`) read `found` and left `board`, and which then
    ran `events`: the model after each of the restore's own records (a cancel, marks, relinks, the undo armed again,
    numbered after the restored one; until the writer wrote them, a restore finds the board the restore read and
    reports the same effects again), then after each prefix of the accepted events, by the record number canvas-sim
    gives it (one per accepted event, one more for the file noted after a record when a stop follows in the script).
    Returns (candidates, the model at the end, its last record number)."""
    candidates = {head["sequence"] + j: state for j, state in enumerate(restore_states(found, exists))}
    model = board.copy()
    sequence = max(candidates)
    for index, event in enumerate(events):
        if not model.apply(event):
            continue
        sequence += 1
        candidates[sequence] = model.copy()
        if event[0] == "record" and any(e[0] == "stop" for e in events[index + 1:]):
            sequence += 1
            candidates[sequence] = model.copy()
    return candidates, model, sequence


def printed(canvases):
    """The canvases canvas-sim printed, as `Model.canvases` gives them: the take is the board's (its `segments`)."""
    return [(c["index"], c["status"], c["selected"], tuple(c["segments"]), c.get("missing"), c["undoArmed"])
            for c in canvases]


def shown_problem(canvases):
    """What a printed line's cells show against the board: a canvas's `video` (its cell's, for a visible one) must be
    its take's first segment. Returns a one-line problem or None."""
    for c in canvases:
        first = c["segments"][0] if c["segments"] else None
        if c["video"] != first:
            return f"canvas {c['index']} shows video {c['video']}, its take is {c['segments']}"
    return None


def check_steps(board, events, lines):
    """Checks every step a run printed against the model from `board` (the board its restore left): whether the event
    was accepted, and the canvases after it. Returns a one-line problem or None."""
    model = board.copy()
    for line in lines[1:]:
        if "step" not in line:
            continue
        event = events[line["step"] - 1]
        accepted = model.apply(event)
        if accepted != line["accepted"]:
            return f"step {line['step']} ({script_word(event)}): accepted {line['accepted']}, the model says {accepted}"
        if printed(line["canvases"]) != model.canvases():
            return (f"step {line['step']} ({script_word(event)}): board {printed(line['canvases'])} is not the "
                    f"model's {model.canvases()}")
        problem = shown_problem(line["canvases"])
        if problem:
            return f"step {line['step']} ({script_word(event)}): {problem}"
    return None


def script_word(event):
    return " ".join(str(part) for part in event)


def make_script(rng, board, length, names):
    """A seeded script biased towards accepted events, some rejected ones, stops into new, missing and used files."""
    events = []
    model = board.copy()
    for _ in range(length):
        n = len(model.takes)
        roll = rng.randrange(100)
        if model.recording and roll < 55:
            pick = rng.randrange(20)
            used = [name for take in model.takes if take for name in take]
            if pick == 0 and used:
                event = ("stop", rng.choice(used))
            else:
                names[0] += 1
                event = ("stop", f"{'missing' if pick == 1 else 'take'}-{names[0]}.mov")
        elif model.recording and roll < 62:
            event = ("cancel",)
        elif model.recording and roll < 70:
            # The recorder's answers: its first sample, a failure, a recording cut short with or without a file.
            pick = rng.randrange(4)
            problem = rng.choice(["call", "cameraTaken", "background", "systemPressure", "mediaServicesFailed"])
            if pick == 0:
                event = ("started", rng.randrange(1, 10_000) / 4)
            elif pick == 1:
                event = ("failed", problem)
            elif pick == 2:
                event = ("cut-short", problem)
            else:
                names[0] += 1
                event = ("cut-short", problem, f"take-{names[0]}.mov")
        elif roll < 40:
            event = ("tap", rng.randrange(n + (1 if roll % 9 == 0 else 0)))
        elif roll < 60:
            # A new take, or (a quarter of the time) the next segment of the selected canvas's take.
            event = ("resume",) if roll >= 55 else ("record",)
        elif roll < 70:
            event = ("delete", rng.randrange(n))
        elif roll < 80:
            event = ("add",) if n < 12 else ("tap", rng.randrange(n))
        elif roll < 86:
            event = ("remove", rng.randrange(n))
        elif roll < 88:
            # The app saying a take's file is back (accepted only on a take marked missing).
            event = ("relink", rng.randrange(n))
        elif roll < 93:
            # An undo: armed by the first, the take removed by a second of the same canvas in a row.
            event = ("undo", model.armed if model.armed is not None and roll % 2 else rng.randrange(n))
        elif roll == 93:
            event = ("disarm",)
        elif roll % 3 == 0:
            event = ("started", 1.5) if roll % 2 else ("failed", "call")
        else:
            event = ("stop", "take-0.mov") if roll % 2 else ("cancel",)
        model.apply(event)
        events.append(event)
    return events


def self_check():
    """The checks above on hand-made restores, run before every harness run (microseconds): a restore whose own
    records were not written before the kill must be accepted when the next restore reports the same effects again,
    and a restore that reports too few effects must be refused. Raises AssertionError naming the case that failed."""
    exists = lambda name: not name.startswith("missing-")

    def head(sequence, board, effects):
        canvases = [{"index": i, "status": status, "selected": selected, "video": take[0] if take else None,
                     "segments": list(take), "missing": missing, "undoArmed": armed}
                    for i, status, selected, take, missing, armed in board.canvases()]
        return {"sequence": sequence, "effects": effects, "canvases": canvases}

    # A board whose canvas 1 holds a take whose file is gone, and one recording into a file that is gone too.
    read = Model(2)
    for event in [("tap", 1), ("record",), ("stop", "missing-47.mov")]:
        assert read.apply(event)
    recording = read.copy()
    for event in [("tap", 0), ("record",)]:
        assert recording.apply(event)
    for found, effects in [(read, ["take missing 1 missing-47.mov"]),
                           (recording, ["take interrupted 0", "take missing 1 missing-47.mov"])]:
        restored = found.recovered(exists)[0]
        problem, first = check_restore(head(143, restored, effects), [({143: found}, 140)], False, exists)
        assert problem is None and len(first) == 1 and first[0].canvases() == found.canvases(), problem
        first = first[0]
        # The prediction after that restore: its own records (a cancel, the mark), then (here) nothing else.
        states = restore_states(first, exists)
        prediction = {143 + j: state for j, state in enumerate(states)}
        assert len(states) == 2 + found.recording and states[-1].canvases() == restored.canvases()
        # Killed before the writer wrote the restore's records: the next restore reads the same board again.
        assert check_restore(head(143, restored, effects), [(prediction, 143)], False, exists)[0] is None, effects
        # Or after it wrote all or some of them: the interruption is reported until its cancel is written, the missing
        # take at every restore.
        for j in range(1, len(states)):
            left = [e for e in effects if states[j].recording or not e.startswith("take interrupted")]
            assert check_restore(head(143 + j, restored, left), [(prediction, 143)], False,
                                 exists)[0] is None, (j, left)
            # The same through a run killed before it printed its restore (which may have written them).
            assert check_restore(head(143 + j, restored, left), [({141: Model(2), 143: found}, 141)], True,
                                 exists)[0] is None, (j, left)
        # A restore that reports nothing while its board still holds the missing take is refused.
        assert check_restore(head(143, restored, []), [(prediction, 143)], False, exists)[0] is not None
        assert check_restore(head(143, restored, []), [({143: found}, 140)], True, exists)[0] is not None
    check_alike_boards(head, exists)


def check_alike_boards(head, exists):
    """Part of `self_check`: two boards that print alike after a restore, read after runs killed before they printed
    theirs, whose restores write different numbers of records. Canvas 0 holds a take marked missing; a run stops
    canvas 2 into a file that is gone (record 14), its script goes on with a relink of canvas 0; it is killed after
    record 14. The next run is killed before it prints its restore, after its writer wrote the mark of canvas 2 (15).
    The run after reads record 15 and writes nothing of its own; but the board after record 15 of the killed run's
    script (the relink) prints alike once restored, and its restore would write two marks. The run deletes canvas 1's
    take (record 16) and is killed; the next restore must be explained. (The harness once took the last of the
    alike boards only, numbered the delete 18, and called this restore a lost take.)"""
    start = Model(3)
    for event in [("tap", 0), ("record",), ("stop", "missing-1.mov"), ("tap", 1), ("record",), ("stop", "take-23.mov"),
                  ("tap", 1)]:
        assert start.apply(event)
    start = start.recovered(exists)[0]
    candidates, _, _ = predict(start, {"sequence": 10}, start, [("tap", 2), ("record",), ("stop", "missing-3.mov"),
                                                             ("relink", 0), ("tap", 2)], exists)
    read = candidates[14].copy()
    read.missing[2] = "missing-3.mov"
    effects = ["take missing 0 missing-1.mov", "take missing 2 missing-3.mov"]
    restored = read.recovered(exists)[0]
    problem, found = check_restore(head(15, restored, effects), [(candidates, 12)], True, exists)
    assert problem is None, problem
    events = [("delete", 1), ("tap", 0)]
    alternatives = [(predict(board, {"sequence": 15}, restored, events, exists)[0], 15) for board in found]
    assert restored.apply(("delete", 1))
    problem, _ = check_restore(head(16, restored, effects), alternatives, False, exists)
    assert problem is None, problem


def set_aside(root):
    """Removes the drafts of the last run from `root`; those of a run that found a mismatch (it left `MISMATCH` there)
    are moved to `root`-kept-N instead, so running again does not destroy the evidence."""
    if os.path.exists(os.path.join(root, "MISMATCH")):
        number = 1
        while os.path.exists(f"{root}-kept-{number}"):
            number += 1
        os.rename(root, f"{root}-kept-{number}")
        print(f"crash-drafts: the drafts of the last mismatch are kept in {root}-kept-{number}", file=sys.stderr)
    shutil.rmtree(root, ignore_errors=True)


def report(root, message):
    """Prints a mismatch and marks `root` as holding its evidence (see `set_aside`)."""
    print(f"crash-drafts: {message}", file=sys.stderr)
    with open(os.path.join(root, "MISMATCH"), "w") as f:
        f.write(message + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--binary", default=".build/debug/canvas-sim")
    parser.add_argument("--snapshot-every", type=int, default=0, help="0: random per draft (5-200)")
    parser.add_argument("--drafts", type=int, default=0, help="kills per draft before a new one (0: random 5-40)")
    args = parser.parse_args()
    self_check()
    if not os.access(args.binary, os.X_OK):
        print(f"crash-drafts: no executable at {args.binary} (build canvas-sim first)", file=sys.stderr)
        return 2

    root = os.path.abspath(".fuzz/drafts")
    set_aside(root)
    os.makedirs(root)
    rng = random.Random(args.seed)
    kills = restores = mismatches = finished = durable_checked = 0
    started = time.monotonic()
    session = 0

    while kills < args.kills and mismatches == 0:
        session += 1
        folder = os.path.join(root, f"session-{session}")
        os.makedirs(folder)
        draft = os.path.join(folder, "board.draft")
        cells = rng.randrange(1, 7)
        board = Model(cells)
        names = [0]
        snapshot_every = args.snapshot_every or rng.choice([5, 20, 50, 200])
        runs_left = args.drafts or rng.randrange(5, 40)
        # [(candidates by sequence, durable sequence)] of the run before, one per board its restore may have read.
        expected = None
        ambiguous = False
        run = 0
        while runs_left > 0 and kills < args.kills and mismatches == 0:
            runs_left -= 1
            run += 1
            events = make_script(rng, board, rng.randrange(10, 120), names)
            for event in events:
                if event[0] in ("stop", "cut-short") and str(event[-1]).startswith("take-"):
                    open(os.path.join(folder, event[-1]), "a").close()
            script = os.path.join(folder, f"run-{run}.txt")
            with open(script, "w") as f:
                f.write("\n".join(script_word(e) for e in events) + "\n")
            command = [args.binary, "--draft", draft, "--script", script, "--format", "json", "--cells", str(cells),
                       "--snapshot-every", str(snapshot_every)]
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # Kill after a random number of lines, or at a random moment (during start-up, the restore or a write).
            mode = rng.random()
            kill_after_lines = rng.randrange(0, len(events) + 1) if mode < 0.85 else None
            # Some runs end by themselves (their last record must then be durable); the others are killed at a
            # random moment (start-up, the restore, a write) instead of after a line.
            kill_at = time.monotonic() + (rng.uniform(0, 0.08) if mode < 0.95 else 1e9)
            lines = []
            buffer = b""
            killed = False
            while True:
                timeout = max(0, kill_at - time.monotonic()) if kill_after_lines is None else 1.0
                timeout = min(timeout, 1.0)
                ready, _, _ = select.select([process.stdout], [], [], timeout)
                if not ready:
                    if kill_after_lines is None and time.monotonic() >= kill_at:
                        process.send_signal(signal.SIGKILL)
                        killed = True
                        break
                    continue
                chunk = os.read(process.stdout.fileno(), 65536)
                if not chunk:
                    break
                buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                lines += [json.loads(line) for line in complete if line]
                if kill_after_lines is not None and len(lines) >= kill_after_lines + 1:
                    if rng.random() < 0.5:
                        time.sleep(rng.uniform(0, 0.002))
                    process.send_signal(signal.SIGKILL)
                    killed = True
                    break
            if killed:
                # Lines written before the kill are still in the pipe.
                while True:
                    chunk = process.stdout.read()
                    if not chunk:
                        break
                    buffer += chunk
                *complete, buffer = buffer.split(b"\n")
                lines += [json.loads(line) for line in complete if line]
            stderr = process.stderr.read().decode(errors="replace")
            status = process.wait()
            # What the run printed, kept with its script until the draft is done with (evidence for a mismatch).
            with open(os.path.join(folder, f"run-{run}.json"), "w") as f:
                json.dump({"killed": killed, "lines": lines}, f)
            if killed:
                kills += 1
            elif status != 0:
                report(root, f"canvas-sim exited {status} in {folder} run {run}: {stderr.strip()}")
                mismatches += 1
                break
            else:
                finished += 1

            # The restore this run printed first: check it against the model's prediction for the run before.
            if lines and "draft" in lines[0]:
                restores += 1
                head = lines[0]
                exists = lambda name: os.path.exists(os.path.join(folder, name))
                alternatives = expected or [({0: board}, 0)]
                problem, found = check_restore(head, alternatives, ambiguous, exists)
                if not problem and max(durable for _, durable in alternatives) > 0:
                    durable_checked += 1
                if problem:
                    mismatches += 1
                    report(root, f"MISMATCH in {folder} run {run}: {problem}")
                    break
                # The boards found print alike once restored: they differ only in what the restore changed.
                board = found[0].recovered(exists)[0]
                ambiguous = False
                # Every step the run printed, from the board the restore left.
                problem = check_steps(board, events, lines)
                if problem:
                    mismatches += 1
                    report(root, f"MISMATCH in {folder} run {run}: {problem}")
                    break
            elif killed:
                # Killed before it printed its restore: the prediction for the run before still holds, but the restore
                # may have journaled its own records.
                ambiguous = True
                continue
            else:
                report(root, f"no restore line from {' '.join(command)}")
                mismatches += 1
                break

            # The prediction for the next restore, one per board the restore may have read, and the last record the run
            # reported durable.
            predictions = [predict(state, head, board, events, exists) for state in found]
            durable = max([l.get("durable", 0) for l in lines[1:]] + [head["sequence"]])
            expected = [(candidates, durable) for candidates, _, _ in predictions]
            if not killed:
                # A run that ended waited for every record: the next restore must be the whole run.
                ended = [(model, sequence) for _, model, sequence in predictions if sequence == durable]
                if not ended:
                    report(root, f"MISMATCH in {folder} run {run}: it ended with record {durable} durable, "
                           f"the model counts {predictions[0][2]}")
                    mismatches += 1
                    break
                expected = [({sequence: model.copy()}, sequence) for model, sequence in ended]
                board = ended[0][0]
        if mismatches == 0:
            # Done with this draft without a mismatch: its files are no evidence.
            shutil.rmtree(folder, ignore_errors=True)

    elapsed = time.monotonic() - started
    print(f"crash-drafts: {kills} kills, {restores} restores ({durable_checked} after durable records), "
          f"{finished} runs ended by themselves, {mismatches} mismatches in {elapsed:.0f} s "
          f"(seed {args.seed}, {session} drafts)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
