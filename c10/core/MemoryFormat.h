#pragma once
// Memory formats: the order in which a tensor's dims lie in memory. The shape
// stays logical (N, C, H, W); channels_last only changes the strides, so that
// the channel is the fastest dim (N, H, W, C in memory).

#include <c10/util/ArrayRef.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace c10 {

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

inline constexpr int kNumMemoryFormats = 4;

// torch's Python names: "contiguous_format", "preserve_format", "channels_last", "channels_last_3d".
std::string_view toString(MemoryFormat format);

// The format with that Python name (as in schema defaults), if any.
std::optional<MemoryFormat> memory_format_named(std::string_view name);

// The dims from slowest to fastest of a layout format (Contiguous: natural
// order for any rank); nullopt for Preserve, which is a rule, not a layout.
// A rank the format cannot lay out raises torch's error, naming `op`.
std::optional<std::vector<int64_t>> dims_order(MemoryFormat format, int64_t rank, std::string_view op);

// Dense strides laying out `sizes` in the order of a layout format.
std::vector<int64_t> strides_in(MemoryFormat format, IntArrayRef sizes, std::string_view op);

// Whether sizes/strides are dense in the order of a format (size-1 dims may
// have any stride, as for is_contiguous()): false for a rank the format does
// not lay out; preserve_format asks for plain contiguity, as in torch.
bool is_contiguous_in(MemoryFormat format, IntArrayRef sizes, IntArrayRef strides);

}  // namespace c10
