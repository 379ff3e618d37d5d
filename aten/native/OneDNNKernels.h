#pragma once
// Which oneDNN kernels 16-bit (bfloat16, float16) matrix products and
// convolutions get on this CPU, by oneDNN's name for them
// ("brg:avx512_core_amx", ...), or "" where oneDNN has only reference loops
// and Ember computes through float32 instead. Probed once; benchmarks print
// them. (No oneDNN header here: the Python binding includes this one.)

#include <c10/core/ScalarType.h>

#include <string>

namespace ember::native::onednn {

const std::string& lowp_gemm_kernel(c10::ScalarType t);
const std::string& lowp_conv_kernel(c10::ScalarType t);

}  // namespace ember::native::onednn
