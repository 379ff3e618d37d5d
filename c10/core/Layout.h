#pragma once
// How a tensor's elements are laid out: strided memory, or sparse COO
// (indices of the non-zero entries and their values).

#include <cstdint>
#include <string_view>

namespace c10 {

enum class Layout : uint8_t { Strided, Sparse };

// torch's names: "strided", "sparse_coo".
constexpr std::string_view toString(Layout layout) { return layout == Layout::Sparse ? "sparse_coo" : "strided"; }
// For messages that start a sentence ("Sparse tensors do not have strides").
constexpr std::string_view layoutTitle(Layout layout) { return layout == Layout::Sparse ? "Sparse" : "Strided"; }

}  // namespace c10
