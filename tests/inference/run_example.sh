#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/inference/detect.py as a test: builds the model it needs (exit 77,
# SKIP, where python3-onnx is missing), then runs the example with --check and
# the arguments given.
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$here/make_model.py" --out "$dir" || exit $?
python3 "$here/../../examples/inference/detect.py" --model "$dir/brightest.onnx" \
  --labels "$dir/labels.txt" --out "$dir/detections.ppm" --check "$@"
