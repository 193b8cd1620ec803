// `tcsim config describe`: the reference of a config kind, as Markdown, generated from the Schema.
#include <cmath>

#include "config/config.h"
#include "config/value.h"

namespace tcsim::config {

namespace {

std::string unit_text(ParamType t) {
  switch (t) {
    case ParamType::bytes: return "bytes: B, KiB, MiB, GiB, KB, MB, GB";
    case ParamType::frequency: return "Hz: Hz, kHz, MHz, GHz";
    case ParamType::bandwidth: return "B/s: GB/s, TB/s, GiB/s, ...";
    case ParamType::bytes_per_cycle: return "B/clk";
    case ParamType::time: return "s: ps, ns, us, ms, s";
    case ParamType::cycles: return "cycles (bare number or 35cycles)";
    case ParamType::power: return "W: mW, W, kW";
    case ParamType::energy: return "J: fJ, pJ, nJ, uJ, mJ, J";
    case ParamType::voltage: return "V: mV, V";
    case ParamType::energy_per_byte: return "J/B: pJ/bit, pJ/B, ...";
    default: return "";
  }
}

// Markdown table cells may not contain '|'.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void rows(std::string& out, const Schema& schema, const std::string& prefix) {
  for (const auto& entry : schema.entries()) {
    if (const auto* p = std::get_if<Param>(&entry)) {
      std::string range = range_text(*p);
      if (p->type == ParamType::choice) {
        range.clear();
        for (const auto& c : p->choices) range += (range.empty() ? "" : ", ") + ("`" + c + "`");
      }
      out += "| `" + prefix + p->path + "` | " + std::string(type_name(p->type)) + " | " + unit_text(p->type) + " | " +
             (p->default_text.empty() ? std::string("**required**") : "`" + cell(p->default_text) + "`") + " | " +
             cell(range) + " | " + cell(p->description) + " |\n";
    } else {
      const auto& l = std::get<ListParam>(entry);
      out += "| `" + prefix + l.path + "` | list of records | | `[]` | | " + cell(l.description) +
             " (a YAML sequence of maps with the `" + prefix + l.path + "[].` keys below) |\n";
      rows(out, *l.record, prefix + l.path + "[].");
    }
  }
}

}  // namespace

std::string describe(const Schema& schema) {
  std::string out = "## `kind: " + schema.kind() + "`\n\n" + schema.description() + "\n\n";
  out += "Every file starts with `version: 1` and `kind: " + schema.kind() +
         "`; `base: other.yaml` (relative to the file) takes every value from another file, which this "
         "file overrides key by key (a list is replaced as a whole). Values take units as shown; "
         "unknown keys are errors. `--set a.b=v` overrides one value on the command line.\n\n";
  out += "| parameter | type | unit | default | range | description |\n|---|---|---|---|---|---|\n";
  rows(out, schema, "");
  return out;
}

}  // namespace tcsim::config
