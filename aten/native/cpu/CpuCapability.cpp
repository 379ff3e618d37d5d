#include <aten/native/cpu/CpuCapability.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace ember::native::cpu {

namespace {

// AVX512 means the set every AVX-512 server and desktop part has (F, BW, VL,
// DQ: oneDNN's "avx512_core", which its Winograd needs); the AVX2 kernels use
// FMA too, which every CPU with AVX2 has in practice.
CpuCapability detected() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    return CpuCapability::AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuCapability::AVX2;
  return CpuCapability::Default;
}

// An unknown value asks for nothing: the variable only ever lowers the set.
CpuCapability requested() {
  const char* value = std::getenv("EMBER_CPU_CAPABILITY");
  std::string v = value ? value : "";
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "default") return CpuCapability::Default;
  if (v == "avx2") return CpuCapability::AVX2;
  return CpuCapability::AVX512;
}

}  // namespace

CpuCapability cpu_capability() {
  static const CpuCapability capability = std::min(detected(), requested());
  return capability;
}

const char* to_string(CpuCapability capability) {
  switch (capability) {
    case CpuCapability::AVX512: return "AVX512";
    case CpuCapability::AVX2: return "AVX2";
    default: return "DEFAULT";
  }
}

}  // namespace ember::native::cpu
