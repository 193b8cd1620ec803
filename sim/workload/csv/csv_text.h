#pragma once
// A small CSV reader shared by the workload readers (op traces, DeepBench exports, measured data).
// Blank lines and lines whose first non-blank character is '#' are skipped; the first remaining
// line is the header. Fields follow RFC 4180 quoting ("a,b" and "" inside quotes) and are trimmed.
// Every row remembers its line number so errors can say "file:line: field". Every row has exactly
// as many fields as the header (a missing or extra field is an error, never a shifted column), and
// no column name appears twice in the header (case-insensitive).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/formats/format_id.h"
#include "workload/kernel.h"

namespace tcsim::workload {

struct CsvRow {
  long line = 0;                     // 1-based line number in the file
  std::vector<std::string> fields;   // trimmed, unquoted
};

struct CsvText {
  std::string file;                  // for error messages
  long header_line = 0;
  std::vector<std::string> header;   // as written (trimmed)
  std::vector<CsvRow> rows;

  // Index of the column whose name equals `name` (case-insensitive), or -1.
  int column(std::string_view name) const;
  // The field of `row` in column `col`; empty when the row is short.
  const std::string& field(const CsvRow& row, int col) const;
};

// Parses CSV text. Throws InputError(file:line) on an unterminated quote or when there is no header.
CsvText parse_csv(std::string_view text, const std::string& file);
// Reads and parses a file; InputError when it cannot be read.
CsvText read_csv(const std::filesystem::path& file);

// Field parsers for readers: each throws InputError(location(file, line, field), what was expected).
// A dimension is an integer in [1, 2^31]; larger values are rejected so that products of a few
// dimensions stay far from int64 overflow (the models compute sizes in double or int64).
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 31;
std::int64_t parse_dimension(const std::string& text, const std::string& file, long line, const std::string& field);
// An integer in [min, max].
std::int64_t parse_int_in(const std::string& text, std::int64_t min, std::int64_t max, const std::string& file,
                          long line, const std::string& field);
// A finite number > 0 (times, rates).
double parse_positive(const std::string& text, const std::string& file, long line, const std::string& field);
// A measured time: a number of `unit` (e.g. "us", seconds_per_unit 1e-6) in seconds, which must lie in
// [kMinMeasuredSeconds, kMaxMeasuredSeconds]: no kernel runs in under a nanosecond (4.9e-324 us is a
// corrupted cell, and would give error metrics of 1e62 %), none takes a week.
inline constexpr double kMinMeasuredSeconds = 1e-9;
inline constexpr double kMaxMeasuredSeconds = 1e6;
double parse_time_seconds(const std::string& text, double seconds_per_unit, const char* unit, const std::string& file,
                          long line, const std::string& field);
FormatId parse_format_field(const std::string& text, const std::string& file, long line, const std::string& field);
Layout parse_layout_field(const std::string& text, const std::string& file, long line, const std::string& field);

// Layout names "NN", "NT", "TN", "TT" (parse is case-insensitive).
std::string_view layout_name(Layout layout);
std::optional<Layout> parse_layout(std::string_view text);

}  // namespace tcsim::workload
