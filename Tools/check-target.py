#!/usr/bin/env python3
"""Checks a video against a publishing target's requirements, read with ffprobe and from the file's atoms.

usage: Tools/check-target.py tiktok|reels|shorts FILE

Prints one line per requirement, `ok` or `FAIL`, with what was found; exits 0 when every requirement holds, 1 when
one does not, 2 for a bad command line or a file ffprobe cannot read. The figures are the platforms' published ones
(Docs/Composition.md, "Publishing targets", names the source of each), written here again on purpose: this script is
the composer's independent check, not a reader of its code.
"""

import json
import math
import struct
import subprocess
import sys

# target: (platform, video bit-rate cap in bit/s for a frame rate, AAC bit rate, shortest and longest length in s)
TARGETS = {
    "tiktok": ("TikTok", lambda fps: 25_000_000, 128_000, 0, 180),
    "reels": ("Instagram Reels", lambda fps: 25_000_000, 128_000, 3, 900),
    "shorts": ("YouTube Shorts", lambda fps: 8_000_000 if fps <= 30 else 12_000_000, 384_000, 0, 180),
}
# target: the largest file, in bytes (Reels); the others' limits are beyond what their length and cap can write
FILE_SIZES = {"reels": 300_000_000}
SIZE = (1080, 1920)
RATES = (23, 60)
B_FRAMES = 2
AAC_FRAME = 1024 / 48000
# ITU-T H.264 Table A-1: level_idc, MaxMBPS, MaxFS, MaxDpbMbs, MaxBR (kbit/s, x 1.25 for High)
LEVELS = [
    (10, 1485, 99, 396, 64), (11, 3000, 396, 900, 192), (12, 6000, 396, 2376, 384), (13, 11880, 396, 2376, 768),
    (20, 11880, 396, 2376, 2000), (21, 19800, 792, 4752, 4000), (22, 20250, 1620, 8100, 4000),
    (30, 40500, 1620, 8100, 10000), (31, 108000, 3600, 18000, 14000), (32, 216000, 5120, 20480, 20000),
    (40, 245760, 8192, 32768, 20000), (41, 245760, 8192, 32768, 50000), (42, 522240, 8704, 34816, 50000),
    (50, 589824, 22080, 110400, 135000), (51, 983040, 36864, 184320, 240000), (52, 2073600, 36864, 184320, 240000),
]


class Report:
    def __init__(self):
        self.failed = False

    def check(self, holds, requirement, found):
        self.failed |= not holds
        print(f"{'ok  ' if holds else 'FAIL'} {requirement}: {found}")


def run(arguments):
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(f"check-target: {arguments[0]} failed: {result.stderr.strip()}\n")
        sys.exit(2)
    return result


def probe(path, *arguments):
    return json.loads(run(["ffprobe", "-v", "error", "-of", "json", *arguments, path]).stdout)


def fraction(text):
    numerator, _, denominator = text.partition("/")
    return float(numerator) / float(denominator or 1) if float(denominator or 1) else 0.0


def atoms(data, start, end):
    """(type, offset of the body, end) of each atom between start and end."""
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        body = start + 8
        if size == 1:
            size, body = struct.unpack(">Q", data[start + 8:start + 16])[0], start + 16
        elif size == 0:
            size = end - start
        if size < 8:
            return
        yield kind.decode("latin-1"), body, start + size
        start += size


def edit_lists(data, moov):
    """Each track's edit list as [(segment duration, media time, rate)]; tracks without one are left out."""
    lists = []
    for kind, body, end in atoms(data, *moov):
        if kind != "trak":
            continue
        for inner, inner_body, inner_end in atoms(data, body, end):
            if inner != "edts":
                continue
            for leaf, leaf_body, _ in atoms(data, inner_body, inner_end):
                if leaf != "elst":
                    continue
                version = data[leaf_body]
                count = struct.unpack(">I", data[leaf_body + 4:leaf_body + 8])[0]
                entry, offset, entries = (20 if version == 1 else 12), leaf_body + 8, []
                for _ in range(count):
                    layout = ">Qq" if version == 1 else ">Ii"
                    duration, media = struct.unpack(layout, data[offset:offset + entry - 4])
                    rate = struct.unpack(">i", data[offset + entry - 4:offset + entry])[0] / 65536
                    entries.append((duration, media, rate))
                    offset += entry
                lists.append(entries)
    return lists


def check_container(report, path):
    with open(path, "rb") as file:
        data = file.read()
    top = [(kind, body, end) for kind, body, end in atoms(data, 0, len(data))]
    kinds = [kind for kind, _, _ in top]
    moov_first = "moov" in kinds and "mdat" in kinds and kinds.index("moov") < kinds.index("mdat")
    report.check(moov_first, "moov before mdat (+faststart)", " ".join(kinds))
    moov = next(((body, end) for kind, body, end in top if kind == "moov"), None)
    lists = edit_lists(data, moov) if moov else []
    identity = all(len(entries) == 1 and entries[0][1] == 0 and entries[0][2] == 1 for entries in lists)
    report.check(identity, "no edit list (or an identity edit)", f"{len(lists)} edit lists {lists}")


def level_needed(width, height, fps):
    columns, rows = math.ceil(width / 16), math.ceil(height / 16)
    for idc, mbps, frame, dpb, bit_rate in LEVELS:
        side = math.sqrt(8 * frame)
        if columns * rows <= frame and columns <= side and rows <= side and columns * rows * fps <= mbps:
            return idc, dpb, bit_rate * 1250
    return None, 0, 0


def check_sps(report, path, video, level_idc, dpb_macroblocks):
    """The decoded picture buffer the SPS asks for, against the level's (read with the trace_headers filter)."""
    trace = run(["ffmpeg", "-v", "info", "-i", path, "-map", "0:v:0", "-c", "copy", "-bsf:v", "trace_headers",
                 "-frames:v", "1", "-f", "null", "-"]).stderr
    values = {}
    for line in trace.splitlines():
        parts = line.split()
        if "trace_headers" in line and len(parts) >= 3 and parts[-2] == "=":
            values.setdefault(parts[-4], int(parts[-1]))
    frames = values.get("max_dec_frame_buffering")
    macroblocks = math.ceil(video["width"] / 16) * math.ceil(video["height"] / 16)
    holds = frames is not None and frames * macroblocks <= dpb_macroblocks
    report.check(holds, f"decoded picture buffer within level {level_idc / 10:.1f}",
                 f"{frames} frames of {macroblocks} macroblocks, level limit {dpb_macroblocks}")


def check_video(report, path, video, target):
    platform, cap_of, _, _, _ = TARGETS[target]
    report.check(video.get("codec_name") == "h264" and video.get("profile") == "High", "H.264 High",
                 f"{video.get('codec_name')} {video.get('profile')}")
    report.check((video["width"], video["height"]) == SIZE, "size 1080x1920", f"{video['width']}x{video['height']}")
    report.check(video.get("pix_fmt") == "yuv420p" and video.get("field_order", "progressive") == "progressive",
                 "progressive 4:2:0", f"{video.get('pix_fmt')} {video.get('field_order')}")
    fps = fraction(video.get("avg_frame_rate", "0/0"))
    report.check(RATES[0] <= fps <= RATES[1], f"frame rate {RATES[0]}-{RATES[1]}", f"{fps:.3f}")
    level_idc, dpb, level_bit_rate = level_needed(video["width"], video["height"], fps)
    report.check(video.get("level") == level_idc, "the level size and rate need",
                 f"{video.get('level')}, needs {level_idc}")
    check_sps(report, path, video, level_idc or 0, dpb)
    packets = probe(path, "-select_streams", "v:0", "-show_entries", "packet=pts,dts,size,flags",
                    "-show_packets")["packets"]
    check_gop(report, packets, fps)
    check_b_frames(report, path, video)
    base = fraction(video["time_base"])
    cap = cap_of(fps)
    peak = peak_bits(packets, base)
    report.check(peak <= cap, f"{platform} bit-rate cap: no second over {cap / 1e6:g} Mbit", f"{peak / 1e6:.3f} Mbit")
    report.check(peak <= level_bit_rate, "within the level's MaxBR",
                 f"{peak / 1e6:.3f} Mbit in a second, level limit {level_bit_rate / 1e6:g} Mbit/s")
    return fps


def check_gop(report, packets, fps):
    keyframes = [index for index, packet in enumerate(packets) if "K" in packet.get("flags", "")]
    longest_gop = max((b - a for a, b in zip(keyframes, keyframes[1:] + [len(packets)])), default=0)
    limit = math.floor(fps / 2)
    report.check(bool(keyframes) and keyframes[0] == 0 and longest_gop <= limit,
                 f"keyframe every {limit} frames or sooner", f"longest GOP {longest_gop} frames")
    # Closed: no picture decoded after a keyframe is shown before it.
    later_minimum, minima = math.inf, [0] * len(packets)
    for index in range(len(packets) - 1, -1, -1):
        minima[index] = later_minimum
        later_minimum = min(later_minimum, int(packets[index]["pts"]))
    open_gops = [index for index in keyframes if minima[index] < int(packets[index]["pts"])]
    report.check(not open_gops, "closed GOPs", f"{len(open_gops)} open of {len(keyframes)}")


def check_b_frames(report, path, video):
    frames = probe(path, "-select_streams", "v:0", "-show_entries", "frame=pict_type", "-show_frames")["frames"]
    types = "".join(frame.get("pict_type", "?") for frame in frames)
    longest = max((len(run) for run in types.replace("I", " ").replace("P", " ").split()), default=0)
    report.check(video.get("has_b_frames", 0) > 0 and 1 <= longest <= B_FRAMES,
                 f"B-frames, at most {B_FRAMES} in a row",
                 f"has_b_frames {video.get('has_b_frames')}, {types.count('B')} B of {len(types)}, "
                 f"longest run {longest}")


def peak_bits(packets, base):
    """The most bits of packets decoded within one second."""
    times = sorted((int(p["dts"]) * base, int(p["size"]) * 8) for p in packets if p.get("dts") not in (None, "N/A"))
    peak, total, first = 0, 0, 0
    for time, bits in times:
        total += bits
        while times[first][0] <= time - 1:
            total -= times[first][1]
            first += 1
        peak = max(peak, total)
    return peak


def check_audio(report, audio, target):
    _, _, bit_rate, _, _ = TARGETS[target]
    if audio is None:
        report.check(False, "AAC-LC 48 kHz stereo", "no audio stream")
        return
    found = f"{audio.get('codec_name')} {audio.get('profile')} {audio.get('sample_rate')} Hz " \
            f"{audio.get('channels')} channels"
    report.check(audio.get("codec_name") == "aac" and audio.get("profile") == "LC" and
                 audio.get("sample_rate") == "48000" and audio.get("channels") == 2, "AAC-LC 48 kHz stereo", found)
    measured = int(audio.get("bit_rate", 0))
    report.check(0 < measured <= bit_rate * 1.05, f"audio at most {bit_rate // 1000} kbit/s (5% margin)",
                 f"{measured / 1000:.1f} kbit/s")


def main(arguments):
    if len(arguments) != 2 or arguments[0] not in TARGETS:
        sys.stderr.write("usage: check-target.py tiktok|reels|shorts FILE\n")
        return 2
    target, path = arguments
    info = probe(path, "-show_streams", "-show_format")
    video = next((s for s in info.get("streams", []) if s.get("codec_type") == "video"), None)
    audio = next((s for s in info.get("streams", []) if s.get("codec_type") == "audio"), None)
    report = Report()
    check_container(report, path)
    if video is None:
        report.check(False, "a video stream", "none")
        return 1
    check_video(report, path, video, target)
    check_audio(report, audio, target)
    starts = [float(s.get("start_time", "nan")) for s in (video, audio) if s is not None]
    report.check(all(abs(start) < 0.001 for start in starts), "picture and sound start at 0", f"{starts}")
    platform, _, _, shortest, longest = TARGETS[target]
    duration = float(info["format"].get("duration", "nan"))
    video_duration = float(video.get("duration", "nan"))
    holds = video_duration <= longest and duration <= longest + AAC_FRAME and duration >= shortest
    report.check(holds, f"{platform} length, {shortest}-{longest} s",
                 f"{duration:.3f} s (video {video_duration:.3f} s)")
    size, limit = int(info["format"].get("size", 0)), FILE_SIZES.get(target)
    report.check(limit is None or size <= limit,
                 f"{platform} file size, at most {limit / 1e6:g} MB" if limit else f"{platform} file size, no limit within reach",
                 f"{size / 1e6:.3f} MB")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
