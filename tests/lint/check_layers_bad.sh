#!/usr/bin/env bash
# A fixture repository whose runtime includes the compiler, and a folder with no row: check_layers
# must fail and name both.
set -euo pipefail
python="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs" "$tmp/runtime/core" "$tmp/runtime/exec" "$tmp/compiler/ir" "$tmp/compiler/newstage"
cp "$src/docs/architecture.md" "$tmp/docs/"
printf '#include "runtime/core/status.h"\n' > "$tmp/runtime/core/ok.h"
printf '#include "runtime/core/ok.h"\n#include "compiler/ir/graph.h"\n' > "$tmp/runtime/exec/bad.cc"
printf '#include "runtime/core/status.h"\n' > "$tmp/compiler/ir/graph.h"
printf '#include "compiler/ir/graph.h"\n' > "$tmp/compiler/newstage/x.cc"
git -C "$tmp" init -q
git -C "$tmp" add -A
if out="$("$python" "$src/scripts/check_layers" --root "$tmp")"; then
  echo "check_layers passed a tree with a wrong-way include:"
  echo "$out"
  exit 1
fi
echo "$out"
grep -q 'runtime/exec/bad.cc:2: runtime/exec may not include compiler/ir/graph.h' <<<"$out"
grep -q "unit 'compiler/newstage' has no row" <<<"$out"
