#!/usr/bin/env python3
"""Writes a display matrix into an MP4/MOV file's first video track, in place.

    mp4-matrix.py FILE A B C D

A, B, C, D are the matrix's 2x2 part (-1, 0 or 1 each) in the file's own order, the one ffprobe prints: the first
row is (A, B), the second (C, D). The translation is set so the transformed picture starts at (0, 0), as QuickTime
writes it. FFmpeg 5.1's muxer can write rotations only (the `rotate` tag); QuickTime's Flip Horizontal and Flip
Vertical write mirrors, which this makes. Deterministic: only the 36 matrix bytes of one `tkhd` box change.
"""
import struct
import sys

CONTAINERS = {b"moov", b"trak"}


def boxes(data, start, end):
    """Yields (type, box start, payload start, box end) for the boxes in data[start:end]."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
            header = 16
        elif size == 0:
            size = end - at
        if size < header or at + size > end:
            raise SystemExit(f"mp4-matrix: malformed box {kind!r} at {at}")
        yield kind, at, at + header, at + size
        at += size


def video_tkhd(data):
    """The offset of the matrix in the tkhd box of the first track whose handler is 'vide'."""
    for kind, _, payload, end in boxes(data, 0, len(data)):
        if kind != b"moov":
            continue
        for kind, _, trak, trak_end in boxes(data, payload, end):
            if kind != b"trak":
                continue
            matrix = None
            video = False
            for kind, _, inner, inner_end in boxes(data, trak, trak_end):
                if kind == b"tkhd":
                    version = data[inner]
                    # version, flags, times, track id, reserved, duration (32- or 64-bit), reserved, layer,
                    # alternate group, volume, reserved: then the 3x3 matrix.
                    matrix = inner + (4 + 8 + 4 + 4 + 4 if version == 0 else 4 + 16 + 4 + 4 + 8) + 8 + 8
                elif kind == b"mdia":
                    for kind, _, mdia, _ in boxes(data, inner, inner_end):
                        if kind == b"hdlr" and data[mdia + 8:mdia + 12] == b"vide":
                            video = True
            if video and matrix is not None:
                return matrix
    raise SystemExit("mp4-matrix: no video track header found")


def main():
    if len(sys.argv) != 6:
        raise SystemExit("usage: mp4-matrix.py FILE A B C D")
    path = sys.argv[1]
    a, b, c, d = (int(value) for value in sys.argv[2:])
    with open(path, "rb") as file:
        data = bytearray(file.read())
    at = video_tkhd(data)
    width, height = (value >> 16 for value in struct.unpack(">II", data[at + 36:at + 44]))
    # (x', y') = (a x + c y + tx, b x + d y + ty) for 0 <= x <= width, 0 <= y <= height: the smallest x' and y' are 0.
    tx = -min(a * width, 0) - min(c * height, 0)
    ty = -min(b * width, 0) - min(d * height, 0)
    one = 1 << 16
    data[at:at + 36] = struct.pack(">9i", a * one, b * one, 0, c * one, d * one, 0, tx * one, ty * one, 1 << 30)
    with open(path, "wb") as file:
        file.write(data)


main()
