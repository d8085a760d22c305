#pragma once
// What a misspelt name most likely meant, for the fix of an InputError: an axis (`size` for
// `size_bytes`), a suite (`nodes` for `node`), a rules profile (`h200` for `h200-sxm`).
#include <string>
#include <string_view>
#include <vector>

namespace railgauge {

// Levenshtein distance: insertions, deletions and substitutions of one character each.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates `name` most likely meant, at most `most`: those that begin or end with it
// (a name typed short), else those the fewest edits away when that is at most two or a third of
// its length (a typo, a swap); empty when none is near, so that no guess is offered at random.
std::vector<std::string> likely_meant(std::string_view name,
                                      const std::vector<std::string> &candidates,
                                      std::size_t most = 3);

// "did you mean 'size_bytes'? " (with a trailing space, to lead a fix), or "" when none is near.
std::string did_you_mean(std::string_view name, const std::vector<std::string> &candidates);

} // namespace railgauge
