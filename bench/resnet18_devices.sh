#!/usr/bin/env bash
# ResNet-18 end to end on fsim and on the RTL (tsim): compiles bench/models/out/resnet18.onnx for
# 1x16x16, runs one image on each device, checks the outputs are identical and prints cycles,
# GEMM utilization, wall time and fsim's cycle agreement with the RTL. Not CI: tsim takes minutes.
#
#   bench/models/build_models.py --models resnet18     # once (needs torch, see bench/models)
#   bench/resnet18_devices.sh [DEVICES...]             # default: fsim tsim
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/build/bin"
model="$root/bench/models/out/resnet18.onnx"
out="$root/build/bench/resnet18"
devices=("$@")
((${#devices[@]})) || devices=(fsim tsim)

[[ -f "$model" ]] || { echo "no $model: run bench/models/build_models.py --models resnet18" >&2; exit 1; }
[[ -x "$bin/loom" ]] || { echo "no $bin/loom: run scripts/build" >&2; exit 1; }
mkdir -p "$out"

start=$EPOCHREALTIME
"$bin/loom" compile "$model" -o "$out/resnet18.loom" --config 1x16x16 --no-sqnr > "$out/compile.txt" 2>&1
echo "compiled in $(awk "BEGIN{print $EPOCHREALTIME - $start}") s (log: ${out#$root/}/compile.txt)"

printf '\n| device | cycles | GEMM utilization | wall time (s) | output |\n| --- | ---: | ---: | ---: | --- |\n'
first=""
for d in "${devices[@]}"; do
  start=$EPOCHREALTIME
  "$bin/loom" run "$out/resnet18.loom" --device "$d" --input "$root/bench/models/out/resnet18_input.npy" \
    --output "$out/out_$d.npy" --stats "$out/stats_$d.json" > /dev/null 2>&1
  wall=$(awk "BEGIN{print $EPOCHREALTIME - $start}")
  same="reference"
  if [[ -n "$first" ]]; then
    cmp -s "$out/out_$first.npy" "$out/out_$d.npy" && same="identical to $first" || same="DIFFERS from $first"
  else
    first=$d
  fi
  /usr/bin/python3 - "$out/stats_$d.json" "$d" "$wall" "$same" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"| {sys.argv[2]} | {s['cycles']:,} | {100 * s['gemm_utilization']:.1f} % | {float(sys.argv[3]):.1f} | {sys.argv[4]} |")
PY
done
if [[ -f "$out/stats_fsim.json" && -f "$out/stats_tsim.json" ]]; then
  /usr/bin/python3 - "$out/stats_fsim.json" "$out/stats_tsim.json" <<'PY'
import json, sys
f, t = (json.load(open(p))['cycles'] for p in sys.argv[1:3])
print(f"\nfsim / tsim cycles: {f / t:.4f}")
PY
fi
