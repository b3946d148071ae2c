#!/usr/bin/env python3
"""Rewrites the display matrix of an MP4/MOV's only video track in place (its tkhd box), as QuickTime writes one.

    Tools/set-display-matrix.py FILE A B C D

A, B, C, D are the 2x2 part of the matrix, row-major as FFmpeg's display matrix (each -1, 0 or 1): 1 0 0 1 is
upright, -1 0 0 1 QuickTime's Flip Horizontal, 1 0 0 -1 its Flip Vertical, 0 1 -1 0 a quarter turn clockwise.
The translation is set so the picture stays in the positive quadrant. ffmpeg 5.1 can write plain rotations
(-metadata:s:v rotate=) but no mirror; Tools/Corpus/picture.sh and Tools/bench-thumbnails.sh use this instead.
Deterministic: only the 36 matrix bytes change.
"""
import struct
import sys

if len(sys.argv) != 6:
    sys.exit("usage: set-display-matrix.py FILE A B C D")
path = sys.argv[1]
a, b, c, d = (int(value) for value in sys.argv[2:6])
data = bytearray(open(path, "rb").read())
at = data.find(b"tkhd")
if at < 4 or data.find(b"tkhd", at + 4) >= 0:
    sys.exit(f"set-display-matrix: {path}: expected exactly one track header (tkhd)")
box = at - 4
matrix = box + (60 if data[at + 4] == 1 else 48)  # version 1 has 64-bit times and duration
width, height = (value >> 16 for value in struct.unpack(">II", data[matrix + 36:matrix + 44]))
x = (width if a < 0 else 0) + (height if c < 0 else 0)
y = (width if b < 0 else 0) + (height if d < 0 else 0)
struct.pack_into(">9i", data, matrix, a << 16, b << 16, 0, c << 16, d << 16, 0, x << 16, y << 16, 1 << 30)
open(path, "wb").write(data)
