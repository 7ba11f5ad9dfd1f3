#!/usr/bin/env bash
# `loom tune` and `loom compile --tuning-log` as a user runs them, on the ResNet basic block of
# tests/e2e: the tune table and log, the compile marking tuned layers (table and --report), and a
# malformed log refused naming its line and field.
# usage: tune_cli.sh LOOM SOURCE_DIR WORK_DIR
set -euo pipefail
loom="$1"
src="$2"
dir="$3"
mkdir -p "$dir"
model="$src/tests/e2e/models/resnet_basic"
fail() {
  echo "tune_cli: $*" >&2
  exit 1
}

"$loom" tune "$model.onnx" --calibration "${model}_calibration.npy" -o "$dir/log.json" \
  --trials 6 >"$dir/tune.txt" 2>"$dir/tune.err" || fail "loom tune failed: $(cat "$dir/tune.err")"
grep -q "^convolutions in the model" "$dir/tune.txt" || fail "no totals line in the tune report"
grep -q "tune \[1/" "$dir/tune.err" || fail "no progress lines"
[[ $(grep -c '"kind":"best"' "$dir/log.json") -ge 1 ]] || fail "no best record in the log"

"$loom" compile "$model.onnx" --calibration "${model}_calibration.npy" -o "$dir/tuned.loom" \
  --tuning-log "$dir/log.json" --no-sqnr --report "$dir/report.json" >"$dir/compile.txt" \
  2>"$dir/compile.err" || fail "loom compile --tuning-log failed: $(cat "$dir/compile.err")"
grep -q "layers scheduled from the tuning log" "$dir/compile.txt" || fail "no tuned layers in the table"
grep -q '"tuned": true' "$dir/report.json" || fail "the report marks no layer tuned"

sed -n 1p "$dir/log.json" | sed 's/"vt":[12]/"vt":3/' >"$dir/bad.json"
if "$loom" compile "$model.onnx" -o "$dir/bad.loom" --tuning-log "$dir/bad.json" 2>"$dir/bad.err"; then
  fail "a malformed log was accepted"
fi
grep -q "bad.json:1: field 'tiling.vt': value 3 outside \[1, 2\]" "$dir/bad.err" ||
  fail "unexpected error: $(cat "$dir/bad.err")"
# The packing knob on the stem block (7x7/2 over 3 channels): "off", then "fold", each logged beside
# "on" with the model's cycles, and a log whose "off" record is the faster one compiles the layer
# unpacked.
stem="$src/tests/e2e/models/resnet_stem"
"$loom" tune "$stem.onnx" --calibration "${stem}_calibration.npy" -o "$dir/stem.json" \
  --trials 2 >"$dir/stem.txt" 2>"$dir/stem.err" || fail "loom tune (stem) failed: $(cat "$dir/stem.err")"
[[ $(grep -c '"kind":"packing"' "$dir/stem.json") -eq 4 ]] || fail "not 4 packing records in the log"
grep '"kind":"packing"' "$dir/stem.json" | grep -q '"value":"fold"' || fail "no fold record"
grep -q "^model knobs" "$dir/stem.txt" || fail "no knob totals in the tune report"
grep '"kind":"packing"' "$dir/stem.json" | grep '"value":"off"' |
  sed 's/"cycles":[0-9]*/"cycles":1/' >"$dir/unpacked.json"
"$loom" compile "$stem.onnx" --calibration "${stem}_calibration.npy" -o "$dir/unpacked.loom" \
  --tuning-log "$dir/unpacked.json" --no-sqnr >"$dir/unpacked.txt" 2>"$dir/unpacked.err" ||
  fail "loom compile (unpacked) failed: $(cat "$dir/unpacked.err")"
grep -q "1 layers left unpacked" "$dir/unpacked.err" || fail "the log left no layer unpacked"
if grep -q "s2d" "$dir/unpacked.txt"; then fail "the layer was packed anyway"; fi
echo "tune_cli: ok"
