#include "systolic/config/scalesim_cfg.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "common/files/atomic_file.h"
#include "common/error.h"

namespace tcsim::systolic {
namespace {

std::string strip(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}
std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct Entry {
  std::string value;
  long line = 0;
  std::string key;  // as written
};

std::int64_t to_int(const Entry& e, const std::string& where, std::int64_t min, std::int64_t max) {
  std::size_t pos = 0;
  std::int64_t v = 0;
  bool ok = !e.value.empty();
  try {
    v = std::stoll(e.value, &pos);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok || pos != e.value.size()) throw InputError(where, "expected an integer, got '" + e.value + "'");
  if (v < min || v > max)
    throw InputError(where, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + e.value);
  return v;
}

}  // namespace

SystolicConfig parse_scalesim_cfg(const std::string& text, const std::string& name) {
  // section -> key (lower case) -> entry
  std::map<std::string, std::map<std::string, Entry>> ini;
  const std::map<std::string, std::set<std::string>> known = {
      {"general", {"run_name"}},
      {"architecture_presets",
       {"arrayheight", "arraywidth", "ifmapsramszkb", "filtersramszkb", "ofmapsramszkb", "ifmapoffset",
        "filteroffset", "ofmapoffset", "dataflow", "bandwidth", "memorybanks", "readrequestbuffer",
        "writerequestbuffer"}},
      {"run_presets", {"interfacebandwidth", "useramulatortrace"}},
      {"network_presets", {"topologycsvloc"}},
      {"layout", {}},    // v3: any key, ignored
      {"sparsity", {}},  // v3: any key, ignored
  };
  std::istringstream in(text);
  std::string raw, section;
  std::map<std::string, long> section_lines;
  long line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string s = strip(raw);
    if (s.empty() || s[0] == '#' || s[0] == ';') continue;
    if (s.front() == '[') {
      if (s.back() != ']') throw InputError(location(name, line), "expected a section header like [general]");
      section = lower(strip(s.substr(1, s.size() - 2)));
      if (!known.count(section))
        throw InputError(location(name, line, section),
                         "unknown section; expected general, architecture_presets, run_presets, network_presets, "
                         "layout or sparsity");
      if (auto [it, fresh] = section_lines.emplace(section, line); !fresh)
        throw InputError(location(name, line, section),
                         "section given twice (also on line " + std::to_string(it->second) + ")");
      continue;
    }
    const auto sep = s.find_first_of(":=");
    if (sep == std::string::npos)
      throw InputError(location(name, line), "expected `key: value` or `key = value`, got '" + s + "'");
    if (section.empty()) throw InputError(location(name, line), "a key before any [section]");
    const std::string key = strip(s.substr(0, sep));
    const std::string lkey = lower(key);
    const auto& keys = known.at(section);
    if (!keys.empty() && !keys.count(lkey))
      throw InputError(location(name, line, section + "." + key), "unknown key in [" + section + "]");
    if (auto it = ini[section].find(lkey); it != ini[section].end())
      throw InputError(location(name, line, section + "." + key),
                       "key given twice in [" + section + "] (also on line " + std::to_string(it->second.line) + ")");
    ini[section][lkey] = {strip(s.substr(sep + 1)), line, key};
  }

  SystolicConfig c;
  c.semantics = Semantics::scalesim_v2;
  c.word_bytes = 1;
  c.bytes_from_formats = false;
  auto get = [&](const std::string& sec, const std::string& key, bool required) -> const Entry* {
    auto s = ini.find(sec);
    if (s != ini.end()) {
      auto k = s->second.find(key);
      if (k != s->second.end()) return &k->second;
    }
    if (required) throw InputError(location(name, 0, sec + "." + key), "missing required key");
    return nullptr;
  };
  auto where = [&](const Entry& e, const std::string& sec) { return location(name, e.line, sec + "." + e.key); };
  const std::string arch = "architecture_presets";
  if (const Entry* e = get("general", "run_name", false)) c.name = e->value;
  else c.name = std::filesystem::path(name).stem().string();
  {
    const Entry& e = *get(arch, "arrayheight", true);
    c.rows = to_int(e, where(e, arch), 1, kMaxArrayDim);
  }
  {
    const Entry& e = *get(arch, "arraywidth", true);
    c.cols = to_int(e, where(e, arch), 1, kMaxArrayDim);
  }
  auto kb = [&](const char* key) {
    const Entry& e = *get(arch, key, true);
    return static_cast<std::uint64_t>(to_int(e, where(e, arch), 1, kMaxSramBytes / 1024)) * 1024;
  };
  c.ifmap_sram_bytes = kb("ifmapsramszkb");
  c.filter_sram_bytes = kb("filtersramszkb");
  c.ofmap_sram_bytes = kb("ofmapsramszkb");
  if (const Entry* e = get(arch, "ifmapoffset", false)) c.ifmap_offset = to_int(*e, where(*e, arch), 0, kMaxAddressOffset);
  if (const Entry* e = get(arch, "filteroffset", false)) c.filter_offset = to_int(*e, where(*e, arch), 0, kMaxAddressOffset);
  if (const Entry* e = get(arch, "ofmapoffset", false)) c.ofmap_offset = to_int(*e, where(*e, arch), 0, kMaxAddressOffset);
  {
    const Entry& e = *get(arch, "dataflow", true);
    const std::string d = lower(e.value);
    if (d == "os") c.dataflow = Dataflow::os;
    else if (d == "ws") c.dataflow = Dataflow::ws;
    else if (d == "is") c.dataflow = Dataflow::is;
    else throw InputError(where(e, arch), "unknown dataflow '" + e.value + "'; expected os, ws or is");
  }
  if (const Entry* e = get("run_presets", "interfacebandwidth", false)) {
    const std::string m = lower(e->value);
    if (m == "calc") c.bandwidth_mode = BandwidthMode::calc;
    else if (m == "user") c.bandwidth_mode = BandwidthMode::user;
    else throw InputError(where(*e, "run_presets"), "expected CALC or USER, got '" + e->value + "'");
  }
  if (const Entry* e = get(arch, "bandwidth", c.bandwidth_mode == BandwidthMode::user)) {
    // v2 uses only the first value of the list, for all three operands; all must be integers.
    std::size_t pos = 0;
    for (bool first = true;; first = false) {
      const std::size_t comma = e->value.find(',', pos);
      Entry f = *e;
      f.value = strip(e->value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      const auto words = to_int(f, where(*e, arch), 1, static_cast<std::int64_t>(kMaxUserBandwidthWords));
      if (first) c.user_bandwidth_words = static_cast<double>(words);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  // Keys tcsim does not model must still be well-formed (SCALE-Sim would reject them).
  for (const char* key : {"memorybanks", "readrequestbuffer", "writerequestbuffer"})
    if (const Entry* e = get(arch, key, false)) (void)to_int(*e, where(*e, arch), 1, 1 << 20);
  if (const Entry* e = get("run_presets", "useramulatortrace", false)) {
    const std::string b = lower(e->value);
    if (b != "true" && b != "false")
      throw InputError(where(*e, "run_presets"), "expected True or False, got '" + e->value + "'");
  }
  c.validate([&](const std::string& field) {
    const std::string lf = lower(field);
    for (const char* sec : {"architecture_presets", "run_presets"})
      if (const Entry* e = get(sec, lf, false)) return where(*e, sec);
    return location(name, 0, field);
  });
  return c;
}

SystolicConfig read_scalesim_cfg(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "config file not found");
  return parse_scalesim_cfg(read_file(file), file.string());
}

std::string format_scalesim_cfg(const SystolicConfig& c) {
  std::ostringstream os;
  os << "[general]\nrun_name = " << c.name << "\n\n[architecture_presets]\n"
     << "ArrayHeight: " << c.rows << "\nArrayWidth: " << c.cols << "\nIfmapSramSzkB: " << c.ifmap_sram_bytes / 1024
     << "\nFilterSramSzkB: " << c.filter_sram_bytes / 1024 << "\nOfmapSramSzkB: " << c.ofmap_sram_bytes / 1024
     << "\nIfmapOffset: " << c.ifmap_offset << "\nFilterOffset: " << c.filter_offset
     << "\nOfmapOffset: " << c.ofmap_offset << "\nDataflow: " << to_string(c.dataflow)
     << "\nBandwidth: " << static_cast<std::int64_t>(c.user_bandwidth_words) << "\n\n[run_presets]\n"
     << "InterfaceBandwidth: " << to_string(c.bandwidth_mode) << "\n";
  return os.str();
}

}  // namespace tcsim::systolic
