#pragma once
// How cells become text in each output format. Internal to sim/io.
#include <string>
#include <string_view>

#include "io/table.h"

namespace tcsim::io {

// For people: integers as integers, other values with about 4 significant digits.
std::string human_number(double v);
// Shortest text that reads back to the same double ("0.1", "1e+20"); "nan", "inf", "-inf".
std::string exact_number(double v);
// The cell as CSV/HDF5 text: exact numbers, empty for monostate.
std::string exact_text(const Cell& c);
bool is_number(const Cell& c);
// Replaces bytes that are not valid UTF-8 with U+FFFD, so JSON and HDF5 UTF-8 strings are valid.
std::string valid_utf8(std::string_view s);
// Display width in code points (continuation bytes do not count).
std::size_t display_width(std::string_view s);

}  // namespace tcsim::io

namespace tcsim::io {
// Table names become file and HDF5 group names: letters, digits, '_', '-', '.', not starting
// with '.'. Throws std::invalid_argument (a programming error) otherwise.
void check_table_name(const std::string& name);
}  // namespace tcsim::io
