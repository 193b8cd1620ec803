#include "workload/csv/scalesim_topology.h"

#include <cctype>
#include <sstream>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {
namespace {

std::string strip(std::string s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_fields(const std::string& row) {
  std::vector<std::string> f;
  std::string cur;
  for (char ch : row) {
    if (ch == ',') {
      f.push_back(strip(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  f.push_back(strip(cur));
  if (f.size() > 1 && f.back().empty()) f.pop_back();  // the trailing comma
  return f;
}

std::int64_t positive_int(const std::string& text, const std::string& where) {
  std::int64_t v = 0;
  std::size_t pos = 0;
  bool ok = !text.empty();
  try {
    v = std::stoll(text, &pos);
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok || pos != text.size())
    throw InputError(where, "expected a positive integer, got '" + text + "'");
  if (v <= 0 || v > kMaxDimension)
    throw InputError(where, "expected a positive integer of at most 2^31 (2147483648), got " + text);
  return v;
}

const char* kConvFields[] = {"Layer name", "IFMAP Height", "IFMAP Width", "Filter Height", "Filter Width",
                             "Channels",   "Num Filter",   "Strides",     "Col Stride"};
const char* kGemmFields[] = {"Layer", "M", "N", "K"};

}  // namespace

std::vector<TopologyLayer> parse_scalesim_topology(const std::string& text, const std::string& name,
                                                   TopologyKind kind) {
  std::vector<TopologyLayer> out;
  std::istringstream in(text);
  std::string row;
  long line = 0;
  bool header_seen = false;
  while (std::getline(in, row)) {
    ++line;
    if (!row.empty() && row.back() == '\r') row.pop_back();
    const std::string trimmed = strip(row);
    if (!header_seen) {
      header_seen = true;
      if (kind == TopologyKind::detect) {
        const auto h = split_fields(trimmed);
        std::string second = h.size() > 1 ? h[1] : "";
        for (auto& ch : second) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        kind = second == "m" ? TopologyKind::gemm : TopologyKind::conv;
      }
      continue;
    }
    if (trimmed.empty()) continue;
    const auto f = split_fields(trimmed);
    const std::string layer = f[0];
    auto where = [&](const char* field) { return location(name, line, field); };
    if (layer.empty()) throw InputError(where("Layer name"), "expected a layer name in the first column");
    Kernel k;
    k.name = layer;
    k.a_format = k.b_format = FormatId::int8;  // SCALE-Sim: 1-byte words
    k.c_format = k.d_format = FormatId::int32;
    if (kind == TopologyKind::gemm) {
      if (f.size() != 4)
        throw InputError(location(name, line), "expected 4 fields `Layer, M, N, K,` in a GEMM topology row, got " +
                                                   std::to_string(f.size()));
      k.kind = Kernel::Kind::gemm;
      k.m = positive_int(f[1], where(kGemmFields[1]));
      k.n = positive_int(f[2], where(kGemmFields[2]));
      k.k = positive_int(f[3], where(kGemmFields[3]));
      out.push_back({k, line});
      continue;
    }
    if (f.size() != 8 && f.size() != 9)
      throw InputError(location(name, line),
                       "expected 8 fields `name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                       "Num Filter, Strides,` (and optionally a column stride) in a conv topology row, got " +
                           std::to_string(f.size()));
    std::int64_t v[9] = {};
    for (std::size_t i = 1; i < f.size(); ++i) v[i] = positive_int(f[i], where(kConvFields[i]));
    if (f.size() == 8) v[8] = v[7];
    k.kind = Kernel::Kind::conv;
    ConvShape& c = k.conv;
    c.ifmap_h = v[1];
    c.ifmap_w = v[2];
    c.filter_h = v[3];
    c.filter_w = v[4];
    c.channels = v[5];
    c.num_filters = v[6];
    c.stride_h = v[7];
    c.stride_w = v[8];
    if (c.filter_h > c.ifmap_h)
      throw InputError(where("Filter Height"), "the filter height (" + std::to_string(c.filter_h) +
                                                   ") is larger than the IFMAP height (" + std::to_string(c.ifmap_h) + ")");
    if (c.filter_w > c.ifmap_w)
      throw InputError(where("Filter Width"), "the filter width (" + std::to_string(c.filter_w) +
                                                  ") is larger than the IFMAP width (" + std::to_string(c.ifmap_w) + ")");
    if (layer.find("DP") != std::string::npos) {
      const std::int64_t channels = c.channels;
      if (channels > kMaxDepthwiseChannels)
        throw InputError(where("Channels"), "a depthwise layer is expanded into one layer per channel; at most " +
                                                std::to_string(kMaxDepthwiseChannels) + " channels, got " +
                                                std::to_string(channels));
      c.channels = 1;
      for (std::int64_t i = 0; i < channels; ++i) {
        Kernel one = k;
        one.name = layer + "Channel_" + std::to_string(i);
        out.push_back({one, line});
      }
      continue;
    }
    out.push_back({k, line});
  }
  if (out.empty()) throw InputError(location(name, line), "no layers: expected a header row and at least one layer row");
  return out;
}

std::vector<TopologyLayer> read_scalesim_topology(const std::filesystem::path& file, TopologyKind kind) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "topology file not found");
  return parse_scalesim_topology(read_file(file), file.string(), kind);
}

}  // namespace tcsim::workload
