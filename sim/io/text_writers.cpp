// The text formats: the aligned terminal table, CSV and JSON.
#include <cstdio>
#include <set>
#include <stdexcept>

#include "io/cell_text.h"
#include "io/writers.h"

namespace tcsim::io {

namespace {

std::string human_text(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&c)) return human_number(*d);
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  return "";
}

// Text cells of the terminal table may not break the layout.
std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  return s;
}

std::string csv_field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string json_string(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(ch));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string json_cell(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&c)) {
    std::string t = exact_number(*d);
    return (t == "nan" || t == "inf" || t == "-inf") ? "null" : t;
  }
  if (const auto* s = std::get_if<std::string>(&c)) return json_string(*s);
  return "null";
}

}  // namespace

std::string format_text_table(const Table& t) {
  const std::size_t n = t.columns.size();
  std::vector<std::vector<std::string>> text(t.rows.size(), std::vector<std::string>(n));
  std::vector<std::size_t> width(n);
  std::vector<bool> numeric(n, true);  // header right-aligned over a column of numbers
  for (std::size_t c = 0; c < n; ++c) width[c] = display_width(t.columns[c].name);
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    for (std::size_t c = 0; c < n && c < t.rows[r].size(); ++c) {
      text[r][c] = one_line(human_text(t.rows[r][c]));
      width[c] = std::max(width[c], display_width(text[r][c]));
      if (std::holds_alternative<std::string>(t.rows[r][c])) numeric[c] = false;
    }
  auto line = [&](const std::vector<std::string>& cells, const std::vector<bool>& right) {
    std::string out;
    for (std::size_t c = 0; c < n; ++c) {
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      if (c) out += "  ";
      out += right[c] ? pad + cells[c] : cells[c] + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> header(n), rule(n);
  for (std::size_t c = 0; c < n; ++c) {
    header[c] = t.columns[c].name;
    rule[c] = std::string(width[c], '-');
  }
  std::string out = line(header, numeric) + line(rule, numeric);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<bool> right(n);
    for (std::size_t c = 0; c < n; ++c) right[c] = c < t.rows[r].size() && is_number(t.rows[r][c]);
    out += line(text[r], right);
  }
  return out;
}

std::string format_csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c].name);
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_field(exact_text(row[c]));
    out += "\n";
  }
  return out;
}

std::string format_json(const ResultSet& r) {
  std::string out = "{\n  \"attributes\": {";
  bool has_version = false;
  for (std::size_t i = 0; i < r.attributes.size(); ++i) {
    has_version |= r.attributes[i].first == "schema_version";
    out += std::string(i ? "," : "") + "\n    " + json_string(r.attributes[i].first) + ": " +
           json_string(r.attributes[i].second);
  }
  if (!has_version) out += std::string(r.attributes.empty() ? "" : ",") + "\n    \"schema_version\": \"1\"";
  out += "\n  },\n  \"tables\": {";
  std::set<std::string> names;
  for (std::size_t ti = 0; ti < r.tables.size(); ++ti) {
    const Table& t = r.tables[ti];
    if (!names.insert(t.name).second) throw std::invalid_argument("result set: two tables named '" + t.name + "'");
    out += std::string(ti ? "," : "") + "\n    " + json_string(t.name) + ": {\n      \"columns\": [";
    for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? ", " : "") + json_string(t.columns[c].name);
    out += "],\n      \"rows\": [";
    for (std::size_t ri = 0; ri < t.rows.size(); ++ri) {
      out += std::string(ri ? "," : "") + "\n        [";
      for (std::size_t c = 0; c < t.rows[ri].size(); ++c) out += (c ? ", " : "") + json_cell(t.rows[ri][c]);
      out += "]";
    }
    out += t.rows.empty() ? "]\n    }" : "\n      ]\n    }";
  }
  out += r.tables.empty() ? "}\n}\n" : "\n  }\n}\n";
  return out;
}

}  // namespace tcsim::io
