#!/usr/bin/env bash
# Runs every test: installs what is missing (Tools/setup.sh), builds everything with warnings as
# errors, then runs the whole Swift Testing suite (unit tests and the CLI tests on Fixtures/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Tools/setup.sh
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build
