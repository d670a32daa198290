# Sourced by the benchmark scripts: halide_target_for_cpu prints the best
# Halide 14 target this CPU really has. Halide 14 crashes if it JITs for
# features the CPU lacks, so HL_JIT_TARGET must not name more than that.
CPU_FLAGS=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has_flag() { [[ "$CPU_FLAGS" == *" $1 "* ]]; }

halide_target_for_cpu() {
  if has_flag avx512f && has_flag avx512cd && has_flag avx512vl && has_flag avx512bw && has_flag avx512dq; then
    if has_flag avx512ifma && has_flag avx512vbmi; then
      echo "x86-64-linux-avx512-avx512_skylake-avx512_cannonlake"
    else
      echo "x86-64-linux-avx512-avx512_skylake"
    fi
  elif has_flag avx2 && has_flag fma && has_flag f16c; then
    echo "x86-64-linux-avx-avx2-f16c-fma-sse41"
  elif has_flag avx && has_flag sse4_1; then
    echo "x86-64-linux-avx-sse41"
  elif has_flag sse4_1; then
    echo "x86-64-linux-sse41"
  else
    echo "x86-64-linux"
  fi
}
