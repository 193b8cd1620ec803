#pragma once
// "Did you mean" suggestions for misspelt keys, choices and --set paths.
#include <string>
#include <string_view>
#include <vector>

namespace tcsim::config {

// Levenshtein distance (insert, delete, substitute, and swap of two neighbours all cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, or "" when none is close enough to be a plausible typo
// (distance at most 1 for short words, up to a third of the word's length, at most 3).
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace tcsim::config
