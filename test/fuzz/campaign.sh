#!/usr/bin/env bash
# A schedule-fuzzer campaign over seeds FIRST .. FIRST + COUNT - 1 (see
# docs/FUZZING.md). Runs ScheduleFuzz.Campaign of test_fuzz under nice; when
# one pipeline uses more than LOOM_FUZZ_GIVE_UP_SECONDS of CPU (default 300) the
# process ends, the seed is recorded as "gave up", and the campaign goes on
# from the next seed. Appends everything to LOG, and prints each run's
# summary line, the seeds given up on, and the totals. With LOOM_FUZZ_GPU=1
# in the environment the pipelines get GPU schedules and run on Vulkan (add
# LOOM_VK_VALIDATION=1 for the validation layer). LOOM_FUZZ_CHUNK=N runs at
# most N pipelines per process (default: all in one), which bounds the
# memory of a long campaign whatever a pipeline leaks.
#
#   test/fuzz/campaign.sh FIRST COUNT LOG [path/to/test_fuzz]
#   LOOM_FUZZ_GPU=1 LOOM_VK_VALIDATION=1 test/fuzz/campaign.sh 100000 2500 gpu.log
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 FIRST_SEED COUNT LOG [test_fuzz executable]" >&2
    exit 2
fi
first=$1
end=$(($1 + $2))
log=$3
exe=${4:-build/test/test_fuzz}
give_up=${LOOM_FUZZ_GIVE_UP_SECONDS:-300}
chunk=${LOOM_FUZZ_CHUNK:-0}
seed=$first
gave_up=""
status=0
while [ "$seed" -lt "$end" ]; do
    count=$((end - seed))
    if [ "$chunk" -gt 0 ] && [ "$count" -gt "$chunk" ]; then count=$chunk; fi
    out=$(LOOM_FUZZ_SEED=$seed LOOM_FUZZ_PIPELINES=$count LOOM_FUZZ_GIVE_UP_SECONDS=$give_up \
        nice -n 19 "$exe" --gtest_filter=ScheduleFuzz.Campaign --gtest_brief=1 2>&1)
    rc=$?
    printf '%s\n' "$out" >>"$log"
    printf '%s\n' "$out" | grep '^\[fuzz\] seeds '
    stuck=$(printf '%s\n' "$out" | sed -n 's/.*; gave up on seed \([0-9]*\) .*/\1/p' | tail -1)
    if [ -n "$stuck" ]; then
        gave_up="$gave_up $stuck"
        seed=$((stuck + 1))
        continue
    fi
    if ! printf '%s\n' "$out" | grep -q '^\[fuzz\] seeds '; then
        echo "[campaign] test_fuzz ended without a summary (exit code $rc); see $log" >&2
        status=1
        crashed=$(printf '%s\n' "$out" | sed -n 's/.*crashed while running pipeline seed \([0-9]*\).*/\1/p' | tail -1)
        if [ -n "$crashed" ]; then
            gave_up="$gave_up $crashed(crash)"
            seed=$((crashed + 1))
            continue
        fi
        break
    fi
    [ "$rc" -ne 0 ] && status=1
    seed=$((seed + count))
done
grep -h '^\[fuzz\] seeds ' "$log" | awk -v first="$first" -v end="$end" '
    { split($3, r, "\\.\\."); s = r[1] + 0; if (s < first || s >= end) next
      n += $4; m += $6; k += $8; f += $10; t += $13; c += $15 }
    END { printf "[campaign] seeds %d..%d: %d pipelines, %d matched, %d skipped, %d failed, in %.0f s, %.0f s of CPU\n",
                 first, end - 1, n, m, k, f, t, c }'
[ -n "$gave_up" ] && echo "[campaign] gave up on (or crashed at) seeds:$gave_up"
exit $status
