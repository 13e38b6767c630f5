#!/usr/bin/env bash
# run.sh — inlay convert (CSV to Parquet) against DuckDB, on the same CSV.
#
#   bench/convert/run.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep] [--gzip]
#
# 1. bench_gen_csv writes the N-row CSV (id,ts,category,value,flag; about
#    80 bytes a row), unless the same N was generated before: it is kept in
#    the workdir given, or in ${TMPDIR:-/tmp} when none is, and reused;
# 2. each K times, the median reported:
#    a. inlay convert IN OUT --schema bench/convert/schema.lua --quiet
#    a1. the same with --threads 1 (no parsing thread)
#    b. inlay convert IN OUT --quiet                  (the schema inferred)
#    c. inlay run bench/convert/map.lua IN OUT        (+ score, a row map)
#    d. inlay run bench/convert/batch.lua IN OUT      (+ score, map_batch)
#    e. convert_peer.mjs: DuckDB COPY (read_csv(...)) TO parquet, threads=1
#    f. the same with threads=2
#    with the peak RSS of each process (/usr/bin/time -f %M, the largest of
#    the K runs; for DuckDB, one node process runs all K);
# 3. convert_peer.mjs --compare checks inlay's files, and DuckDB's threads=2
#    file, against DuckDB's threads=1 file;
# 4. a summary with the ratios and the acceptance lines.
# With --gzip, also the same CSV gzip-compressed (gzip -1, kept beside the
# CSV): g. inlay convert IN.csv.gz (decoded on a thread of its own, parsed
# on another), g1. with --threads 1, h. and i. DuckDB with threads 1 and 2;
# g's file must be a's, byte for byte.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=3
workdir=
keep=0
gz=0

usage() {
    sed -n '3,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR    the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N       CSV rows (default 10000000: about 800 MB)"
    echo "  --repeat K     runs to take the median of (default 3)"
    echo "  --workdir DIR  where the files go (default: a new temporary directory;"
    echo "                 the CSV then goes to \${TMPDIR:-/tmp} and is kept for the next run)"
    echo "  --keep         keep the Parquet files"
    echo "  --gzip         also convert the CSV gzip-compressed (inlay and DuckDB)"
}

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --gzip) gz=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
case $rows$repeat in *[!0-9]*) usage >&2; exit 2 ;; esac
if [ "$rows" -lt 1 ] || [ "$repeat" -lt 1 ]; then
    echo "convert/run.sh: --rows and --repeat must be at least 1" >&2
    exit 2
fi

inlay=$build/inlay
gen=$build/bench/bench_gen_csv
for b in "$inlay" "$gen"; do
    if [ ! -x "$b" ]; then
        echo "convert/run.sh: no $b (build the inlay and bench_gen_csv targets, or pass --build DIR)" >&2
        exit 2
    fi
done
if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/inlay-bench.XXXXXX")
    [ "$keep" = 1 ] || trap 'rm -rf "$workdir"' EXIT
    csv=${TMPDIR:-/tmp}/inlay-bench-convert-$rows.csv
else
    mkdir -p "$workdir"
    csv=$workdir/convert-$rows.csv
fi

# value KEY FILE: the value of KEY in FILE's RESULT line
value() {
    sed -n 's/^RESULT //p' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# median of the numbers on stdin
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Peak RSS: GNU time's %M (KiB); without /usr/bin/time, VmHWM sampled
# every 20 ms while the process runs (a lower bound).
if [ -x /usr/bin/time ]; then
    rss_how="/usr/bin/time -f %M"
else
    rss_how="VmHWM sampled every 20 ms (no /usr/bin/time)"
fi
# measured RSSFILE CMD...: runs CMD, its stdout and stderr to the caller's,
# its peak RSS in KiB to RSSFILE
measured() {
    local rssfile=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$rssfile" "$@"
    else
        local pid hwm=0 h st=0
        "$@" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null; do
            h=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
            [ -n "$h" ] && [ "$h" -gt "$hwm" ] && hwm=$h
            sleep 0.02
        done
        wait "$pid" || st=$?
        echo "$hwm" >"$rssfile"
        return "$st"
    fi
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "== machine: ${cpu:-unknown cpu}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), node $(node --version 2>/dev/null || echo missing)"
echo "== $("$inlay" -v | head -n 1), peak RSS by $rss_how"
echo

# ---- 1. the CSV ------------------------------------------------------------
echo "== CSV: $rows rows"
if [ -f "$csv" ] && [ -f "$csv.result" ] && [ "$(value rows "$csv.result")" = "$rows" ] &&
   [ "$(value bytes "$csv.result")" = "$(stat -c %s "$csv")" ]; then
    echo "reusing $csv ($(sed -n 's/^bench_gen_csv: //p' "$csv.result"))"
else
    rm -f "$csv" "$csv.result"
    "$gen" --rows "$rows" --out "$csv.partial" | tee "$csv.result.partial"
    mv "$csv.partial" "$csv"
    mv "$csv.result.partial" "$csv.result"
fi
in_bytes=$(stat -c %s "$csv")
echo "$csv: $in_bytes bytes ($(awk -v b="$in_bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }'))"
head -n 3 "$csv" | sed 's/^/  /'
if [ "$gz" = 1 ]; then
    csvgz=$csv.gz
    if [ ! -f "$csvgz" ] || [ "$csvgz" -ot "$csv" ]; then
        echo "compressing it: gzip -1"
        gzip -1 -c "$csv" >"$csvgz.partial"
        mv "$csvgz.partial" "$csvgz"
    fi
    echo "$csvgz: $(stat -c %s "$csvgz") bytes"
fi
echo

# ---- 2. the runs ---------------------------------------------------------------
# Each case leaves $workdir/NAME.txt with a RESULT line (seconds, out_bytes,
# maxrss_kb) or with ok=0 and the failure.
failed=0
run_inlay() {
    local name=$1 label=$2 out=$workdir/$1.parquet
    shift 2
    echo "== $label, $repeat runs"
    echo "   $*" | sed "s|$csv|IN.csv|; s|$out|OUT.parquet|; s|$here/|bench/convert/|g"
    local times=() rss=0 k t0 t1 r err=$workdir/$name.err
    for k in $(seq 1 "$repeat"); do
        rm -f "$out"
        t0=$EPOCHREALTIME
        if ! measured "$workdir/$name.rss" "$@" >"$workdir/$name.out" 2>"$err"; then
            echo "   run $k/$repeat: FAILED (exit status)"
            sed -n '1,6p' "$err" | sed 's/^/   | /'
            echo "RESULT ok=0" >"$workdir/$name.txt"
            sed -n '1p' "$err" | sed 's/^/RESULT_ERROR /' >>"$workdir/$name.txt"
            failed=1
            echo
            return 0
        fi
        t1=$EPOCHREALTIME
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
        r=$(tail -n 1 "$workdir/$name.rss")
        [ "$r" -gt "$rss" ] && rss=$r
        echo "   run $k/$repeat: ${times[-1]} s, peak RSS $(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1024 }') MiB"
    done
    [ -s "$workdir/$name.out" ] && sed 's/^/   /' "$workdir/$name.out"
    local t tmin
    t=$(printf '%s\n' "${times[@]}" | median)
    tmin=$(printf '%s\n' "${times[@]}" | sort -g | head -n 1)
    echo "RESULT ok=1 seconds=$t min_seconds=$tmin out_bytes=$(stat -c %s "$out") maxrss_kb=$rss" | tee "$workdir/$name.txt"
    echo
}

run_peer() {
    local name=$1 threads=$2 input=${3:-$csv}
    echo "== duckdb, threads=$threads, $repeat runs (one node process)"
    if measured "$workdir/$name.rss" node "$here/convert_peer.mjs" "$input" --threads "$threads" \
        --repeat "$repeat" --out "$workdir/$name.parquet" >"$workdir/$name.out" 2>"$workdir/$name.err"; then
        sed 's/^/   /' "$workdir/$name.out" | grep -v '^   RESULT'
        echo "RESULT ok=1 seconds=$(value seconds "$workdir/$name.out") min_seconds=$(value min_seconds "$workdir/$name.out")" \
             "out_bytes=$(value out_bytes "$workdir/$name.out")" \
             "maxrss_kb=$(tail -n 1 "$workdir/$name.rss") base_rss_kb=$(value base_rss_kb "$workdir/$name.out")" \
             "version=$(value version "$workdir/$name.out")" | tee "$workdir/$name.txt"
    else
        echo "   FAILED"
        sed -n '1,6p' "$workdir/$name.err" | sed 's/^/   | /'
        echo "RESULT ok=0" >"$workdir/$name.txt"
        sed -n '1p' "$workdir/$name.err" | sed 's/^/RESULT_ERROR /' >>"$workdir/$name.txt"
        failed=1
    fi
    echo
}

run_inlay convert "(a) inlay convert, explicit schema" \
    "$inlay" convert "$csv" "$workdir/convert.parquet" --schema "$here/schema.lua" --quiet
run_inlay convert1 "(a1) inlay convert, explicit schema, parsing and writing in turn (--threads 1)" \
    "$inlay" convert "$csv" "$workdir/convert1.parquet" --schema "$here/schema.lua" --quiet --threads 1
run_inlay infer "(b) inlay convert, inferred schema" \
    "$inlay" convert "$csv" "$workdir/infer.parquet" --quiet
run_inlay map "(c) map.lua: + score = value * 2, src:map" \
    "$inlay" run "$here/map.lua" "$csv" "$workdir/map.parquet"
run_inlay batch "(d) batch.lua: + score = value * 2, src:map_batch" \
    "$inlay" run "$here/batch.lua" "$csv" "$workdir/batch.parquet"
run_peer duckdb1 1
run_peer duckdb2 2
if [ "$gz" = 1 ]; then
    run_inlay gzip "(g) inlay convert of the gzip CSV, explicit schema" \
        "$inlay" convert "$csvgz" "$workdir/gzip.parquet" --schema "$here/schema.lua" --quiet
    run_inlay gzip1 "(g1) the same with --threads 1" \
        "$inlay" convert "$csvgz" "$workdir/gzip1.parquet" --schema "$here/schema.lua" --quiet --threads 1
    run_peer duckdbgz1 1 "$csvgz"
    run_peer duckdbgz2 2 "$csvgz"
    for n in gzip gzip1; do
        if [ "$(value ok "$workdir/$n.txt")" = 1 ] && [ "$(value ok "$workdir/convert.txt")" = 1 ] &&
           ! cmp -s "$workdir/$n.parquet" "$workdir/convert.parquet"; then
            echo "$n.parquet differs from convert.parquet"
            failed=1
        fi
    done
fi

# ---- 3. the check --------------------------------------------------------------
echo "== check: inlay's files read back by DuckDB, against DuckDB's threads=1 file"
verify=fail
if [ "$(value ok "$workdir/duckdb1.txt")" = 1 ]; then
    check=()
    for n in convert convert1 infer map batch duckdb2; do
        [ "$(value ok "$workdir/$n.txt")" = 1 ] && check+=("$workdir/$n.parquet")
    done
    if [ ${#check[@]} -gt 0 ] &&
       node "$here/convert_peer.mjs" --compare "$workdir/duckdb1.parquet" "${check[@]}" | tee "$workdir/check.txt"; then
        verify=ok
    fi
else
    echo "no DuckDB file to check against"
fi
[ "$verify" = ok ] || failed=1
echo

# ---- 4. the summary ------------------------------------------------------------
echo "== summary: $rows rows, $in_bytes bytes of CSV, median of $repeat (MB = 10^6 bytes, MiB = 2^20)"
printf '%-34s %9s %9s %12s %14s %10s\n' "" seconds "MB/s" "rows/s" "output bytes" "peak MiB"
line() {   # line LABEL NAME [NOTE]
    local f=$workdir/$2.txt
    if [ "$(value ok "$f")" != 1 ]; then
        printf '%-34s %s\n' "$1" "FAILED: $(sed -n 's/^RESULT_ERROR //p' "$f" | cut -c1-110)"
        return
    fi
    awk -v l="$1" -v t="$(value seconds "$f")" -v b="$in_bytes" -v n="$rows" -v o="$(value out_bytes "$f")" \
        -v r="$(value maxrss_kb "$f")" -v note="${3:-}" 'BEGIN {
        printf "%-34s %9.3f %9.1f %12.0f %14d %10.1f%s\n", l, t, b / 1e6 / t, n / t, o, r / 1024, note
    }'
}
base_note() {
    local b
    b=$(value base_rss_kb "$workdir/$1.txt")
    [ -n "$b" ] && awk -v b="$b" 'BEGIN { printf "  (node+duckdb at rest %.1f)", b / 1024 }'
}
line "(a) inlay convert --schema" convert
line "(a1) inlay convert --threads 1" convert1
line "(b) inlay convert (inferred)" infer
line "(c) map.lua (src:map)" map
line "(d) batch.lua (map_batch)" batch
line "(e) duckdb COPY, threads=1" duckdb1 "$(base_note duckdb1)"
line "(f) duckdb COPY, threads=2" duckdb2 "$(base_note duckdb2)"
if [ "$gz" = 1 ]; then
    line "(g) inlay convert, gzip CSV" gzip
    line "(g1) gzip CSV, --threads 1" gzip1
    line "(h) duckdb, gzip CSV, threads=1" duckdbgz1 "$(base_note duckdbgz1)"
    line "(i) duckdb, gzip CSV, threads=2" duckdbgz2 "$(base_note duckdbgz2)"
fi
echo

# ratio NUM DEN LABEL [OP LIMIT]: NUM's median seconds / DEN's, with PASS/FAIL
# against LIMIT; the ratio of the fastest runs beside it (on a busy machine
# the medians move more)
echo "ratios of the medians; in brackets, of the fastest of the $repeat runs"
ratio() {
    local a=$workdir/$1.txt b=$workdir/$2.txt
    if [ "$(value ok "$a")" != 1 ] || [ "$(value ok "$b")" != 1 ]; then
        printf '%-44s %s\n' "$3" "n/a (a run failed)"
        return
    fi
    awk -v x="$(value seconds "$a")" -v y="$(value seconds "$b")" -v l="$3" -v op="${4:-}" -v lim="${5:-}" \
        -v xm="$(value min_seconds "$a")" -v ym="$(value min_seconds "$b")" 'BEGIN {
        r = x / y
        printf "%-44s %6.2f  (%4.2f)", l, r, xm / ym
        if (op == ">=") printf "   acceptance >= %s: %s", lim, (r >= lim ? "PASS" : "FAIL")
        if (op == "<=") printf "   acceptance <= %s: %s", lim, (r <= lim ? "PASS" : "FAIL")
        printf "\n"
    }'
}
ratio duckdb1 convert "time duckdb threads=1 / inlay convert" ">=" 1.5
ratio duckdb1 convert1 "time duckdb threads=1 / convert --threads 1"
ratio duckdb2 convert "time duckdb threads=2 / inlay convert"
ratio duckdb1 infer "time duckdb threads=1 / convert (inferred)"
ratio infer convert "time convert (inferred) / convert"
ratio map convert "time map.lua / convert" "<=" 2.0
ratio batch convert "time batch.lua / convert"
ratio map batch "time map.lua / batch.lua"
if [ "$gz" = 1 ]; then
    ratio gzip1 gzip "gzip CSV: time --threads 1 / convert"
    ratio duckdbgz1 gzip "gzip CSV: time duckdb threads=1 / convert"
    ratio duckdbgz2 gzip "gzip CSV: time duckdb threads=2 / convert"
fi
if [ "$(value ok "$workdir/convert.txt")" = 1 ]; then
    awk -v r="$(value maxrss_kb "$workdir/convert.txt")" 'BEGIN {
        printf "%-44s %6.1f MiB   acceptance <= 256 MiB: %s\n", "peak RSS inlay convert", r / 1024, (r <= 262144 ? "PASS" : "FAIL")
    }'
fi
if [ "$(value ok "$workdir/convert.txt")" = 1 ] && [ "$(value ok "$workdir/duckdb1.txt")" = 1 ]; then
    awk -v a="$(value out_bytes "$workdir/convert.txt")" -v b="$(value out_bytes "$workdir/duckdb1.txt")" 'BEGIN {
        printf "%-44s %6.3f\n", "size inlay convert / duckdb threads=1", a / b
    }'
fi
printf "%-44s %6s\n" "check against DuckDB's file (all must match)" "$verify"
[ "$keep" = 1 ] && echo "files kept in $workdir"

# RESULT: one key per case (seconds, or fail), for scripts
res="RESULT rows=$rows in_bytes=$in_bytes repeat=$repeat"
names="convert convert1 infer map batch duckdb1 duckdb2"
[ "$gz" = 1 ] && names="$names gzip gzip1 duckdbgz1 duckdbgz2"
for n in $names; do
    f=$workdir/$n.txt
    if [ "$(value ok "$f")" = 1 ]; then
        res="$res ${n}_s=$(value seconds "$f") ${n}_out=$(value out_bytes "$f") ${n}_rss_kb=$(value maxrss_kb "$f")"
    else
        res="$res ${n}_s=fail"
    fi
done
echo "$res verify=$verify"
[ "$failed" = 0 ]
