#!/usr/bin/env bash
# Synthesis estimates for the Loom RTL with Yosys (synth_xilinx), one config per target FPGA
# family, and a resource table beside each board's capacity (boards/<board>.json "resources").
#
#   vta_hw/synth/synth.sh                          # 1x16x16 on xc7 (pynq-z1), 1x32x32 on xcup (zcu104)
#   vta_hw/synth/synth.sh 1x8x8:xc7:pynq-z1        # any CONFIG:FAMILY:BOARD targets
#   LOOM_BUILD=build-tsim vta_hw/synth/synth.sh    # where loom-hwconfig is (default: build)
#   LOOM_SYNTH_OUT=/tmp/synth vta_hw/synth/synth.sh  # work directory (default: build/synth)
#   LOOM_SYNTH_SHARE=0 vta_hw/synth/synth.sh       # skip synth_xilinx's SAT-based `share` step
#
# LOOM_SYNTH_SHARE=0 runs synth_xilinx's own script with its coarse step's `share` left out (every
# other step as synth_xilinx runs it): no two operators are merged into one behind input muxes.
# The counts then differ a little from the full flow's, not always upwards (1x8x8 on xc7: 20,780
# LUTs without share, 21,549 with it; FF, DSP and BRAM equal). On 1x32x32 `share` compares the 32
# ALU and REQUANT lanes' shifters pairwise with a SAT solver: after more than an hour on this
# machine it had done about a quarter of them.
#
# Per target it writes <out>/<config>-<family>/ with the generated package, the yosys log, the
# netlist statistics (stat.txt) and resources.md (the table); the tables are also printed.
# A bench script, not CI: 1x16x16 takes minutes, 1x32x32 much longer, on two cores.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${LOOM_BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=${LOOM_SYNTH_OUT:-$build/synth}
hwconfig=$build/bin/loom-hwconfig
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(1x16x16:xc7:pynq-z1 1x32x32:xcup:zcu104)

if [ ! -x "$hwconfig" ]; then
  echo "synth.sh: $hwconfig not found; build it first (ninja -C $build loom-hwconfig)" >&2
  exit 1
fi
command -v yosys > /dev/null || { echo "synth.sh: yosys not found" >&2; exit 1; }

# The RTL in compilation order, from the list CMake uses.
rtl=()
while read -r f; do rtl+=("$root/vta_hw/rtl/$f"); done < <(
  sed -n 's#^ *\${LOOM_RTL_DIR}/\(loom_[a-z0-9_]*\.sv\)$#\1#p' "$root/vta_hw/rtl/sources.cmake")

for target in "${targets[@]}"; do
  IFS=: read -r config family board <<< "$target"
  dir=$out/$config-$family
  mkdir -p "$dir"
  "$hwconfig" sv "$config" -o "$dir/loom_hw_pkg.sv"
  echo "synth.sh: $config on $family (board $board) in $dir"
  start=$(date +%s)
  opts="-family $family -top loom_top -flatten -noiopad -noclkbuf"
  if [ "${LOOM_SYNTH_SHARE:-1}" = 0 ]; then
    # synth_xilinx up to its coarse step, the coarse step without share, then the rest.
    flow="synth_xilinx $opts -run :coarse
      techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6
      alumacc
      opt
      memory -nomap
      opt_clean
      synth_xilinx $opts -run map_memory:"
  else
    flow="synth_xilinx $opts"
  fi
  yosys -q -l "$dir/yosys.log" -p "
    read_verilog -sv -DSYNTHESIS $dir/loom_hw_pkg.sv ${rtl[*]}
    $flow
    tee -q -o $dir/stat.txt stat
  "
  seconds=$(( $(date +%s) - start ))
  python3 "$root/vta_hw/synth/resources.py" "$dir/stat.txt" "$root/boards/$board.json" \
    "$config" "$family" "$seconds" > "$dir/resources.md"
  cat "$dir/resources.md"
done
