#include <c10/core/MemoryFormat.h>

#include <c10/util/Exception.h>

#include <numeric>

namespace c10 {

std::string_view toString(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::Preserve: return "preserve_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::ChannelsLast3d: return "channels_last_3d";
  }
  return "unknown_format";
}

std::optional<MemoryFormat> memory_format_named(std::string_view name) {
  for (int i = 0; i < kNumMemoryFormats; ++i) {
    if (toString(static_cast<MemoryFormat>(i)) == name) return static_cast<MemoryFormat>(i);
  }
  return std::nullopt;
}

namespace {
// The rank a channels-last format lays out; nullopt for formats of any rank.
std::optional<int64_t> layout_rank(MemoryFormat format) {
  if (format == MemoryFormat::ChannelsLast) return 4;
  if (format == MemoryFormat::ChannelsLast3d) return 5;
  return std::nullopt;
}
}  // namespace

std::optional<std::vector<int64_t>> dims_order(MemoryFormat format, int64_t rank, std::string_view op) {
  switch (format) {
    case MemoryFormat::Preserve: return std::nullopt;
    case MemoryFormat::Contiguous: {
      std::vector<int64_t> order(static_cast<size_t>(rank));
      std::iota(order.begin(), order.end(), 0);
      return order;
    }
    case MemoryFormat::ChannelsLast:
    case MemoryFormat::ChannelsLast3d: {
      const int64_t want = *layout_rank(format);
      EMBER_CHECK(rank == want, "{}: required rank {} tensor to use {} format, got rank {}", op, want,
                  toString(format), rank);
      std::vector<int64_t> order{0};  // N, the spatial dims, then C
      for (int64_t d = 2; d < rank; ++d) order.push_back(d);
      order.push_back(1);
      return order;
    }
  }
  return std::nullopt;
}

std::vector<int64_t> strides_in(MemoryFormat format, IntArrayRef sizes, std::string_view op) {
  const auto order = dims_order(format, static_cast<int64_t>(sizes.size()), op);
  EMBER_CHECK(order.has_value(), "{}: preserve_format is not a layout", op);
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    strides[static_cast<size_t>(*it)] = step;
    step *= std::max<int64_t>(sizes[static_cast<size_t>(*it)], 1);
  }
  return strides;
}

bool is_contiguous_in(MemoryFormat format, IntArrayRef sizes, IntArrayRef strides) {
  const auto rank = static_cast<int64_t>(sizes.size());
  if (layout_rank(format).value_or(rank) != rank) return false;
  const auto order = dims_order(format == MemoryFormat::Preserve ? MemoryFormat::Contiguous : format, rank, "");
  int64_t expected = 1;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const auto d = static_cast<size_t>(*it);
    if (sizes[d] == 0) return true;
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace c10
