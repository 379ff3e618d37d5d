#pragma once
// Where Ember keeps files it can make again (FFTW's wisdom, ember::deploy's
// library copies): $XDG_CACHE_HOME/ember, else ~/.cache/ember.

#include <string>

namespace c10 {

// The folder (not created here), or empty where neither variable is set.
std::string ember_cache_dir();

}  // namespace c10
