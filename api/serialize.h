#pragma once
// Modules and optimizers to and from files in Ember's format: the state_dict Python's
// ember.save(model.state_dict(), path) writes, so weights cross between the
// frontends in both directions.

#include <api/nn/Module.h>
#include <api/optim/optimizer.h>

#include <string>

namespace ember {

void save(const nn::Module& module, const std::string& path);
// Loads with load_state_dict(strict): missing or unexpected names and shape
// mismatches are one error listing them.
void load(nn::Module& module, const std::string& path);

// An optimizer's state_dict, as Python's ember.save(optimizer.state_dict()).
void save(const optim::Optimizer& optimizer, const std::string& path);
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace ember
