#pragma once
// The class a loss's target names: one check and one message for every loss
// (nll_loss, cross_entropy) on every device, and torch's wording first.

#include <c10/util/Exception.h>

#include <cstdint>

namespace ember::native {

inline void check_target_class(int64_t target, int64_t classes) {
  EMBER_CHECK_INDEX(target >= 0 && target < classes, "Target {} is out of bounds: must be in [0, {})", target,
                    classes);
}

}  // namespace ember::native
