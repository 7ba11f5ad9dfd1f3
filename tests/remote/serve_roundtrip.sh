#!/usr/bin/env bash
# loom-run serve answering loom-run run as two processes on loopback: for each device, the
# outputs through remote://127.0.0.1:PORT/DEVICE are byte-identical to a local run; the package is
# uploaded once and then cached; a garbage client does not stop the server; SIGTERM stops it
# cleanly (exit 0). The server may be another build run under a wrapper, e.g. the cross-built
# board binary under QEMU:
#
#   tests/remote/serve_roundtrip.sh --server "qemu-aarch64 -L /usr/aarch64-linux-gnu \
#       build-firmware/aarch64/bin/loom-run-board" --client build/bin/loom-run \
#       --make-package build/tests/make_test_package --dir /tmp/rt --devices cpu
#
#   --server "CMD"        the server's loom-run (with any wrapper words before it)
#   --client PATH         the host's loom-run (default: build/bin/loom-run)
#   --make-package PATH   make_test_package, to write conv.loom and a 3-image input (default:
#                         build/tests/make_test_package); or --package P --input NAME=FILE.npy
#   --dir DIR             scratch folder (default: a temporary one)
#   --devices "a;b"       devices to compare, on the server and locally (default: cpu)
set -euo pipefail

server="" client="build/bin/loom-run" make="build/tests/make_test_package" dir="" devices="cpu"
package="" input=""
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server="$2"; shift 2 ;;
    --client) client="$2"; shift 2 ;;
    --make-package) make="$2"; shift 2 ;;
    --package) package="$2"; shift 2 ;;
    --input) input="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --devices) devices="$2"; shift 2 ;;
    *) echo "serve_roundtrip: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$server" ] || { echo "serve_roundtrip: --server \"CMD\" is required" >&2; exit 2; }
[ -n "$dir" ] || dir=$(mktemp -d)
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "serve_roundtrip: FAIL: $*" >&2; echo "--- server log:" >&2; cat "$dir/server.log" >&2 || true; exit 1; }

if [ -z "$package" ]; then
  "$make" "$dir/conv.loom" "$dir/input3.npy" 1x8x8 3 >/dev/null
  package="$dir/conv.loom" input="input=$dir/input3.npy"
fi

read -r -a server_cmd <<<"$server"
"${server_cmd[@]}" serve --listen 127.0.0.1:0 --port-file "$dir/port" --device cpu \
  2>"$dir/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
echo "serve_roundtrip: waiting for the server ($server)"
for _ in $(seq 600); do  # up to 60 s: QEMU starts slowly
  [ -s "$dir/port" ] && break
  kill -0 $pid 2>/dev/null || fail "the server exited at start"
  sleep 0.1
done
[ -s "$dir/port" ] || fail "the server wrote no port file"
port=$(cat "$dir/port")
echo "serve_roundtrip: server on 127.0.0.1:$port"

"$client" devices | grep -q '^remote://HOST:PORT\[/DEVICE\]\( \|$\)' || fail "loom-run devices lists no remote://"

IFS=';' read -r -a devs <<<"$devices"
for dev in "${devs[@]}"; do
  "$client" run "$package" --device "$dev" --input "$input" -q \
    --output "$dir/local_$dev.npy" || fail "local run on $dev"
  "$client" run "$package" --device "remote://127.0.0.1:$port/$dev" --input "$input" \
    --output "$dir/remote_$dev.npy" --stats "$dir/stats_$dev.json" || fail "remote run on $dev"
  cmp "$dir/local_$dev.npy" "$dir/remote_$dev.npy" || fail "$dev: remote output differs from local"
  grep -q '"cycles"' "$dir/stats_$dev.json" || fail "$dev: no counters in --stats"
  echo "serve_roundtrip: $dev: remote output byte-identical to local"
done

# A garbage client gets an error and the server goes on; then the device the server defaults to.
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET / HTTP/1.1\r\n\r\n' >&3
cat <&3 >/dev/null || true
exec 3<&-
"$client" run "$package" --device "remote://127.0.0.1:$port" --input "$input" -q \
  --output "$dir/remote_default.npy" || fail "run after a garbage client"
cmp "$dir/local_${devs[0]}.npy" "$dir/remote_default.npy" || fail "default device output differs"

if [[ " ${devs[*]} " == *" fsim "* ]]; then
  "$client" profile "$package" --device "remote://127.0.0.1:$port/fsim" >"$dir/profile.txt" ||
    fail "remote profile"
  grep -q "cycles" "$dir/profile.txt" || fail "remote profile printed no cycles"
fi

uploads=$(grep -c "uploaded) on" "$dir/server.log" || true)
cached=$(grep -c "cached) on" "$dir/server.log" || true)
[ "$uploads" -eq 1 ] || fail "the package was uploaded $uploads times, expected once"
[ "$cached" -ge 1 ] || fail "no run used the cached package"
grep -q "refused" "$dir/server.log" || fail "the garbage client was not refused"

kill -TERM $pid
rc=0
wait $pid || rc=$?
trap - EXIT
[ $rc -eq 0 ] || fail "the server exited with $rc on SIGTERM"
grep -q "stopped" "$dir/server.log" || fail "no 'stopped' line"
echo "serve_roundtrip: PASS (1 upload, $cached cached opens, clean stop)"
