#!/usr/bin/env bash
# Runs every test: installs what is missing (Tools/setup.sh), builds everything with warnings as
# errors, then runs the whole Swift Testing suite (unit tests and the CLI tests on Fixtures/), first
# in a debug build, then in a release build (own scratch path, so release benchmarks are not rebuilt).
# The release run matters: the optimizer reorders and removes retains and releases, so the code that ships runs
# the tests too, and timing-dependent code runs at its real speed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --build-tests -Xswiftc -warnings-as-errors
# Each run is bounded: a test that hangs fails the run at its bound, and is named (Tools/test-bounded.sh).
bash Tools/test-bounded.sh 1200 --skip-build
# The resident-memory bound of the leak test means something only with no other suite beside it.
MULTICANVAS_RESIDENT_CHECK=1 bash Tools/test-bounded.sh 300 --skip-build --filter LeakTests
# The tests reach Thumbnails' test hooks (compiled in debug builds only, unless THUMBNAILS_TEST_HOOKS is defined).
swift build -c release --build-tests -Xswiftc -enable-testing -Xswiftc -DTHUMBNAILS_TEST_HOOKS -Xswiftc -warnings-as-errors \
    --scratch-path .build/release-tests
bash Tools/test-bounded.sh 1200 -c release --skip-build --scratch-path .build/release-tests
MULTICANVAS_RESIDENT_CHECK=1 bash Tools/test-bounded.sh 300 -c release --skip-build --scratch-path .build/release-tests \
    --filter LeakTests
