#!/usr/bin/env bash
# run.sh — bench_dataset and its DuckDB peer, on the same rows.
#
#   bench/dataset/run.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep]
#                        [--duckdb-max-open-files N]
#
# 1. bench_dataset --flat writes the N rows once to one Parquet file (untimed):
#    the peer's input;
# 2. K rounds, one run of each in turn (the machine's speed drifts: both
#    see the same drift): bench_dataset writes the rows as a dataset
#    partitioned by day, platform (180 partitions); duckdb_peer.mjs loads the
#    flat file into a table (untimed) and times COPY ... (FORMAT parquet,
#    PARTITION_BY (day, platform), COMPRESSION zstd) with threads=1;
# 3. the check: DuckDB reads inlay's dataset and its own (hive_partitioning)
#    and compares, per partition, the rows and sums of every column with the
#    flat input;
# 4. a summary: medians, the time ratio duckdb/inlay, both peak RSS, files
#    and bytes, against the targets (ratio >= 2, inlay's peak RSS < 512 MiB).
# The files go to a new folder under /dev/shm (tmpfs: no disk noise),
# removed at the end unless --keep. Exit status 1 when a run or the check
# fails or a target is missed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=5
workdir=
keep=0
duck_open=
ratio_target=2.0
rss_target_mib=512

usage() {
    sed -n '3,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR                 the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N                    rows (default 10000000)"
    echo "  --repeat K                  rounds to take the medians of (default 5)"
    echo "  --workdir DIR               where the files go (default: a new folder under /dev/shm)"
    echo "  --keep                      keep the files"
    echo "  --duckdb-max-open-files N   SET partitioned_write_max_open_files=N for DuckDB (default: its own, 100)"
}

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --duckdb-max-open-files) duck_open=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

bin=$build/bench/bench_dataset
if [ ! -x "$bin" ]; then
    echo "dataset/run.sh: no $bin (build with -DINLAY_BENCH=ON, or pass --build DIR)" >&2
    exit 2
fi
if [ -z "$workdir" ]; then
    base=/dev/shm
    [ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
    workdir=$(mktemp -d "$base/inlay-dataset.XXXXXX")
else
    mkdir -p "$workdir"
fi
cleanup() { [ "$keep" = 1 ] || rm -rf "$workdir"; }
trap cleanup EXIT

result() { sed -n 's/^RESULT //p' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -n 1; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "== machine: ${cpu:-unknown cpu}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), node $(node --version 2>/dev/null || echo missing)"
echo "== files in $workdir"
echo
echo "== the input: $rows rows in one file (untimed)"
"$bin" --rows "$rows" --flat "$workdir/flat.parquet"
echo

peer_extra=()
[ -n "$duck_open" ] && peer_extra=(--max-open-files "$duck_open")
echo "== $repeat rounds: inlay (open to free, generation included) then DuckDB (the COPY alone, threads=1)"
for k in $(seq "$repeat"); do
    "$bin" --rows "$rows" --repeat 1 --out "$workdir/inlay" > "$workdir/inlay_$k.txt" || {
        cat "$workdir/inlay_$k.txt"; echo "dataset/run.sh: bench_dataset failed" >&2; exit 1; }
    [ "$k" = 1 ] && sed -n '/^inlay /,/^output:/p' "$workdir/inlay_$k.txt"
    node "$here/duckdb_peer.mjs" "$workdir/flat.parquet" --out "$workdir/duckdb" --repeat 1 "${peer_extra[@]}" \
        > "$workdir/duckdb_$k.txt" || {
        cat "$workdir/duckdb_$k.txt"; echo "dataset/run.sh: duckdb_peer.mjs failed" >&2; exit 1; }
    [ "$k" = 1 ] && grep -E '^(duckdb |loaded |settings:|timing:)' "$workdir/duckdb_$k.txt"
    printf "  round %d: inlay %7.3f s (cpu %.3f, gen %.3f) %4s files %11s bytes RSS %6.1f MiB | duckdb %7.3f s (cpu %.3f) %4s files %11s bytes RSS %6.1f MiB (copy peak %s MiB)\n" \
        "$k" "$(result "$workdir/inlay_$k.txt" seconds)" "$(result "$workdir/inlay_$k.txt" cpu_seconds)" \
        "$(result "$workdir/inlay_$k.txt" gen_seconds)" \
        "$(result "$workdir/inlay_$k.txt" files)" "$(result "$workdir/inlay_$k.txt" bytes)" \
        "$(awk -v k="$(result "$workdir/inlay_$k.txt" maxrss_kb)" 'BEGIN { print k / 1024 }')" \
        "$(result "$workdir/duckdb_$k.txt" seconds)" "$(result "$workdir/duckdb_$k.txt" cpu_seconds)" \
        "$(result "$workdir/duckdb_$k.txt" files)" \
        "$(result "$workdir/duckdb_$k.txt" bytes)" \
        "$(awk -v k="$(result "$workdir/duckdb_$k.txt" maxrss_kb)" 'BEGIN { print k / 1024 }')" \
        "$(awk -v k="$(result "$workdir/duckdb_$k.txt" copy_hwm_kb)" 'BEGIN { if (k == "na") print "na"; else printf "%.1f", k / 1024 }')"
done
echo
tail -n +2 "$workdir/inlay_$repeat.txt" | grep -E '^(output  |input |lib allocator)' | sed 's/^/  inlay, last round: /'
echo

echo "== check: both datasets read back by DuckDB (hive_partitioning) against the input"
check_ok=1
node "$here/duckdb_peer.mjs" --check "$workdir/flat.parquet" "$workdir/inlay" "$workdir/duckdb" || check_ok=0
echo

med() { for k in $(seq "$repeat"); do result "$workdir/$1_$k.txt" "$2"; done | median; }
it=$(med inlay seconds); ic=$(med inlay cpu_seconds); ig=$(med inlay gen_seconds); irss=$(med inlay maxrss_kb)
ifiles=$(result "$workdir/inlay_$repeat.txt" files); ibytes=$(result "$workdir/inlay_$repeat.txt" bytes)
iparts=$(result "$workdir/inlay_$repeat.txt" partitions)
ipeak=$(med inlay peak_live)
dt=$(med duckdb seconds); dc=$(med duckdb cpu_seconds); drss=$(med duckdb maxrss_kb)
dhwm=$(for k in $(seq "$repeat"); do result "$workdir/duckdb_$k.txt" copy_hwm_kb; done | grep -v na | median || true)
dbefore=$(for k in $(seq "$repeat"); do result "$workdir/duckdb_$k.txt" rss_before_kb; done | grep -v na | median || true)
dfiles=$(result "$workdir/duckdb_$repeat.txt" files); dbytes=$(result "$workdir/duckdb_$repeat.txt" bytes)
dparts=$(result "$workdir/duckdb_$repeat.txt" partitions)

echo "== summary: $rows rows, 180 partitions, medians of $repeat rounds, one thread each"
awk -v n="$rows" -v t="$it" -v c="$ic" -v dc="$dc" -v g="$ig" -v r="$irss" -v f="$ifiles" -v b="$ibytes" -v p="$iparts" -v pl="$ipeak" \
    -v dt="$dt" -v dr="$drss" -v dh="${dhwm:-}" -v db4="${dbefore:-}" -v df="$dfiles" -v dby="$dbytes" -v dp="$dparts" 'BEGIN {
    printf "%-24s %9s %9s %9s %6s %13s %10s %s\n", "", "seconds", "ns/row", "MB/s", "files", "bytes", "partitions", "peak RSS"
    printf "%-24s %9.3f %9.1f %9.1f %6d %13d %10d %.1f MiB (whole process; library peak live %.1f MiB)\n", "inlay", t, t*1e9/n, b/t/1e6, f, b, p, r/1024, pl/1048576
    printf "%-24s %9.3f %9.1f\n", "inlay less generation", t-g, (t-g)*1e9/n
    hw = (dh == "") ? "" : sprintf("; during the COPY %.1f MiB, %.1f MiB over the %.1f MiB before it", dh/1024, (dh-db4)/1024, db4/1024)
    printf "%-24s %9.3f %9.1f %9.1f %6d %13d %10d %.1f MiB (node process: node + DuckDB + table%s)\n", "duckdb COPY, 1 thread", dt, dt*1e9/n, dby/dt/1e6, df, dby, dp, dr/1024, hw
    printf "duckdb / inlay           %.2f  (%.2f against inlay less generation; cpu time %.3f / %.3f s = %.2f)\n", dt/t, dt/(t-g), dc, c, dc/c
    printf "inlay peak RSS           %.1f MiB\n", r/1024
    printf "size inlay / duckdb      %.3f\n", b/dby
}'
verdict=$(awk -v t="$it" -v dt="$dt" -v r="$irss" -v rt="$ratio_target" -v mt="$rss_target_mib" 'BEGIN {
    s = ""
    s = s sprintf("time ratio %.2f %s %.1f", dt/t, dt/t >= rt ? ">=" : "<", rt)
    s = s sprintf(", inlay peak RSS %.1f MiB %s %d MiB", r/1024, r/1024 < mt ? "<" : ">=", mt)
    print ((dt/t >= rt && r/1024 < mt) ? "PASS" : "FAIL") ": " s
}')
echo "targets: $verdict"
echo "check: $([ "$check_ok" = 1 ] && echo ok || echo FAILED)"
echo "RESULT rows=$rows repeat=$repeat inlay_seconds=$it inlay_cpu_seconds=$ic inlay_gen_seconds=$ig inlay_maxrss_kb=$irss inlay_files=$ifiles inlay_bytes=$ibytes duckdb_seconds=$dt duckdb_cpu_seconds=$dc duckdb_maxrss_kb=$drss duckdb_files=$dfiles duckdb_bytes=$dbytes check=$([ "$check_ok" = 1 ] && echo ok || echo failed)"
[ "$keep" = 1 ] && echo "files kept in $workdir"
[ "$check_ok" = 1 ] && [ "${verdict%%:*}" = PASS ]
