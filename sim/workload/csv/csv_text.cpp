#include "workload/csv/csv_text.h"

#include <cmath>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "common/text/units.h"

namespace tcsim::workload {
namespace {

bool is_skipped(std::string_view line) {
  std::string_view t = trim(line);
  return t.empty() || t.front() == '#';
}

// Splits one logical record starting at `pos`; a quoted field may span lines (lines counts them).
std::vector<std::string> split_record(std::string_view text, std::size_t& pos, long& line, const std::string& file) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false, was_quoted = false;
  const long start_line = line;
  while (true) {
    if (pos >= text.size()) {
      if (quoted) throw InputError(location(file, start_line), "unterminated quoted field");
      break;
    }
    char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          cur += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cur += c;
      }
      continue;
    }
    if (c == '"' && trim(cur).empty()) {
      cur.clear();
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields.push_back(was_quoted ? cur : std::string(trim(cur)));
      cur.clear();
      was_quoted = false;
    } else if (c == '\n') {
      break;
    } else if (c != '\r' || (pos < text.size() && text[pos] != '\n')) {
      cur += c;
    }
  }
  fields.push_back(was_quoted ? cur : std::string(trim(cur)));
  return fields;
}

}  // namespace

int CsvText::column(std::string_view name) const {
  const std::string want = to_lower(name);
  for (std::size_t i = 0; i < header.size(); ++i)
    if (to_lower(header[i]) == want) return static_cast<int>(i);
  return -1;
}

const std::string& CsvText::field(const CsvRow& row, int col) const {
  static const std::string empty;
  if (col < 0 || static_cast<std::size_t>(col) >= row.fields.size()) return empty;
  return row.fields[static_cast<std::size_t>(col)];
}

CsvText parse_csv(std::string_view text, const std::string& file) {
  CsvText out;
  out.file = file;
  std::size_t pos = 0;
  long line = 1;
  // Skip a UTF-8 byte-order mark (spreadsheet exports).
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;
  bool have_header = false;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    std::string_view raw = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    if (is_skipped(raw)) {
      pos = eol == std::string_view::npos ? text.size() : eol + 1;
      ++line;
      continue;
    }
    const long record_line = line;
    std::vector<std::string> fields = split_record(text, pos, line, file);
    ++line;
    if (!have_header) {
      out.header = std::move(fields);
      out.header_line = record_line;
      have_header = true;
      for (std::size_t i = 0; i < out.header.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (!out.header[i].empty() && to_lower(out.header[i]) == to_lower(out.header[j]))
            throw InputError(location(file, record_line, out.header[i]),
                             "column given twice (columns " + std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                                 "); each column may appear once");
    } else {
      if (fields.size() != out.header.size())
        throw InputError(location(file, record_line),
                         "expected " + std::to_string(out.header.size()) + " fields (as the header on line " +
                             std::to_string(out.header_line) + "), got " + std::to_string(fields.size()));
      out.rows.push_back({record_line, std::move(fields)});
    }
  }
  if (!have_header) throw InputError(file, "empty CSV: expected a header line");
  return out;
}

CsvText read_csv(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  return parse_csv(read_file(file), file.string());
}

std::int64_t parse_int_in(const std::string& text, std::int64_t min, std::int64_t max, const std::string& file,
                          long line, const std::string& field) {
  const std::string where = location(file, line, field);
  std::int64_t v = 0;
  try {
    v = units::parse_integer(text);
  } catch (const ParseError&) {
    throw InputError(where, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                "], got '" + text + "'");
  }
  if (v < min || v > max)
    throw InputError(where, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                "], got " + text);
  return v;
}

std::int64_t parse_dimension(const std::string& text, const std::string& file, long line, const std::string& field) {
  return parse_int_in(text, 1, kMaxDimension, file, line, field);
}

double parse_positive(const std::string& text, const std::string& file, long line, const std::string& field) {
  double v = 0;
  try {
    v = units::parse_number(text);
  } catch (const ParseError&) {
    throw InputError(location(file, line, field), "expected a positive number, got '" + text + "'");
  }
  if (!std::isfinite(v) || v <= 0)
    throw InputError(location(file, line, field), "expected a positive number, got '" + text + "'");
  return v;
}

double parse_time_seconds(const std::string& text, double seconds_per_unit, const char* unit, const std::string& file,
                          long line, const std::string& field) {
  const double v = parse_positive(text, file, line, field);
  const double s = v * seconds_per_unit;
  if (!(s >= kMinMeasuredSeconds && s <= kMaxMeasuredSeconds))
    throw InputError(location(file, line, field),
                     "expected a time in [" + format_number("%g", kMinMeasuredSeconds / seconds_per_unit) + ", " +
                         format_number("%g", kMaxMeasuredSeconds / seconds_per_unit) + "] " + unit + " (1 ns to 1e6 s), got " + text);
  return s;
}

FormatId parse_format_field(const std::string& text, const std::string& file, long line, const std::string& field) {
  if (auto f = parse_format(text)) return *f;
  throw InputError(location(file, line, field),
                   "unknown number format '" + text +
                       "'; expected one of fp64 fp32 tf32 bf16 fp16 e4m3 e5m2 s32 s8 u8 s4 u4 (or f16, f32, int8 ...)");
}

Layout parse_layout_field(const std::string& text, const std::string& file, long line, const std::string& field) {
  if (auto l = parse_layout(text)) return *l;
  throw InputError(location(file, line, field), "unknown layout '" + text + "'; expected NN, NT, TN or TT");
}

std::string_view layout_name(Layout layout) {
  switch (layout) {
    case Layout::NN: return "NN";
    case Layout::NT: return "NT";
    case Layout::TN: return "TN";
    case Layout::TT: return "TT";
  }
  return "NN";
}

std::optional<Layout> parse_layout(std::string_view text) {
  const std::string t = to_lower(trim(text));
  if (t == "nn") return Layout::NN;
  if (t == "nt") return Layout::NT;
  if (t == "tn") return Layout::TN;
  if (t == "tt") return Layout::TT;
  return std::nullopt;
}

}  // namespace tcsim::workload
