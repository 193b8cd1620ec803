#include "workload/profile/readers/kineto_trace.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <zlib.h>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "workload/profile/readers/profile_links.h"

namespace tcsim::workload {
namespace {

using nlohmann::json;

// "file:line:column" of a byte offset (for the parser's errors).
std::string where_in(std::string_view text, std::size_t offset, const std::string& file) {
  offset = std::min(offset, text.size());
  long line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return file + ":" + std::to_string(line) + ":" + std::to_string(offset - line_start + 1);
}

enum class Category { cpu_op, runtime, gpu, other };

Category category_of(const std::string& cat) {
  if (cat == "cpu_op" || cat == "Operator") return Category::cpu_op;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime") return Category::runtime;
  if (cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Memcpy" ||
      cat == "Memset")
    return Category::gpu;
  return Category::other;
}

struct EventReader {
  const std::string& file;
  std::size_t index = 0;  // of the event in traceEvents

  std::string origin() const { return file + ": traceEvents[" + std::to_string(index) + "]"; }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(origin() + (key.empty() ? "" : ": " + key), what);
  }
  double number(const json& e, const char* key) const {
    auto it = e.find(key);
    if (it == e.end()) fail(key, "missing");
    if (!it->is_number()) fail(key, "expected a number");
    const double v = it->get<double>();
    if (!std::isfinite(v)) fail(key, "expected a finite number");
    return v;
  }
  std::int64_t integer_or(const json& args, const char* key, std::int64_t fallback) const {
    auto it = args.find(key);
    if (it == args.end() || it->is_null()) return fallback;
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_number()) {
      const double v = it->get<double>();
      if (!(std::abs(v) < 9e18)) fail(std::string("args.") + key, "expected an integer");
      return std::int64_t(v);
    }
    if (it->is_string()) {  // tid may be a name ("stream 7")
      return fallback;
    }
    fail(std::string("args.") + key, "expected an integer");
  }
  Dims dims(const json& a, const std::string& key) const {
    Dims d;
    d.reserve(a.size());
    for (const json& v : a) {
      if (!v.is_number_integer()) fail(key, "expected a list of integers");
      d.push_back(v.get<std::int64_t>());
    }
    return d;
  }
};

void read_op_args(const EventReader& r, const json& args, ProfiledOp& op) {
  if (auto it = args.find("Input Dims"); it != args.end()) {
    if (!it->is_array()) r.fail("args.Input Dims", "expected a list");
    op.input_dims.resize(it->size());
    op.input_lists.resize(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& a = (*it)[i];
      const std::string key = "args.Input Dims[" + std::to_string(i) + "]";
      if (!a.is_array()) r.fail(key, "expected a list");
      if (!a.empty() && a.front().is_array()) {  // a TensorList: one size list per tensor
        for (const json& t : a) {
          if (!t.is_array()) r.fail(key, "expected a list of size lists");
          op.input_lists[i].push_back(r.dims(t, key));
        }
      } else {
        op.input_dims[i] = r.dims(a, key);
      }
    }
  }
  if (auto it = args.find("Input type"); it != args.end() && it->is_array()) {
    for (const json& t : *it) op.input_types.push_back(t.is_string() ? t.get<std::string>() : std::string());
  }
  if (auto it = args.find("Input Strides"); it != args.end() && it->is_array()) {
    for (const json& s : *it)
      if (s.is_array() && (s.empty() || !s.front().is_array())) op.input_strides.push_back(r.dims(s, "args.Input Strides"));
      else op.input_strides.emplace_back();
  }
  if (auto it = args.find("Concrete Inputs"); it != args.end() && it->is_array()) {
    for (const json& c : *it) op.concrete.push_back(c.is_string() ? c.get<std::string>() : c.dump());
  }
}

void grid_of(const EventReader& r, const json& args, const char* key, std::array<std::int64_t, 3>& out) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_array()) return;
  const Dims d = r.dims(*it, std::string("args.") + key);
  for (std::size_t i = 0; i < 3 && i < d.size(); ++i) out[i] = d[i];
}

}  // namespace

bool is_kineto_trace_text(std::string_view head) {
  const std::size_t p = head.find_first_not_of(" \t\r\n");
  return p != std::string_view::npos && head[p] == '{' && head.find("\"traceEvents\"") != std::string_view::npos;
}

namespace {

bool is_gzip(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// Up to `limit` bytes of a gzip file, uncompressed (tensorboard_trace_handler(use_gzip=True)).
std::string read_gzip(const std::filesystem::path& file, std::size_t limit) {
  gzFile f = gzopen(file.string().c_str(), "rb");
  if (!f) throw InputError(file.string(), "cannot open the gzip file");
  std::string out;
  char buf[1 << 16];
  int n;
  while (out.size() < limit && (n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, std::size_t(n));
  int err = Z_OK;
  const std::string why = n < 0 ? gzerror(f, &err) : "";
  gzclose(f);
  if (n < 0) throw InputError(file.string(), "damaged gzip data: " + why);
  return out;
}

}  // namespace

bool is_kineto_trace_file(const std::filesystem::path& file) {
  constexpr std::size_t kHead = 65536;  // "deviceProperties" of a multi-GPU host comes before "traceEvents"
  try {
    if (is_gzip(file)) return is_kineto_trace_text(read_gzip(file, kHead));
  } catch (const InputError&) {
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string head(kHead, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  return is_kineto_trace_text(head);
}

Profile parse_kineto_trace(std::string_view text, const std::string& file_name) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    const bool truncated = e.byte >= text.size();
    throw InputError(where_in(text, e.byte == 0 ? 0 : e.byte - 1, file_name),
                     std::string(truncated ? "the JSON ends early (a truncated trace?): " : "malformed JSON: ") + what);
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number like 4E4404 (found by fuzz_profile)
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    throw InputError(file_name, "malformed JSON: " + what);
  }
  if (!doc.is_object()) throw InputError(file_name, "expected a Chrome-trace JSON object with \"traceEvents\"");
  auto events = doc.find("traceEvents");
  if (events == doc.end() || !events->is_array())
    throw InputError(file_name + ": traceEvents", "missing: not a PyTorch profiler (Chrome trace) file");

  Profile p;
  p.source = file_name;
  p.format = "kineto";
  if (auto dp = doc.find("deviceProperties"); dp != doc.end() && dp->is_array() && !dp->empty() &&
                                             dp->front().is_object() && dp->front().contains("name") &&
                                             dp->front()["name"].is_string())
    p.meta.emplace_back("gpu", dp->front()["name"].get<std::string>());

  std::unordered_map<std::int64_t, int> op_of_external;       // cpu_op External id -> op index
  std::unordered_map<std::int64_t, std::int64_t> external_of_launch;  // runtime correlation -> External id
  struct PendingKernel {
    std::int64_t external = -1, correlation = -1;
  };
  std::vector<PendingKernel> pending;
  EventReader r{file_name};
  static const json kEmpty = json::object();
  for (const json& e : *events) {
    if (!e.is_object()) r.fail("", "expected an event object");
    auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string() || *ph != "X") {
      ++r.index;
      continue;
    }
    auto cat_it = e.find("cat");
    const Category cat = cat_it != e.end() && cat_it->is_string() ? category_of(cat_it->get_ref<const std::string&>())
                                                                  : Category::other;
    if (cat == Category::other) {
      ++r.index;
      continue;
    }
    auto args_it = e.find("args");
    const json& args = args_it != e.end() && args_it->is_object() ? *args_it : kEmpty;
    auto name_it = e.find("name");
    if (name_it == e.end() || !name_it->is_string()) r.fail("name", "expected a string");
    if (cat == Category::cpu_op) {
      ProfiledOp op;
      op.name = name_it->get<std::string>();
      op.start_us = r.number(e, "ts");
      op.dur_us = r.number(e, "dur");
      op.tid = r.integer_or(e, "tid", 0);
      op.origin = r.origin();
      read_op_args(r, args, op);
      const std::int64_t ext = r.integer_or(args, "External id", -1);
      if (ext >= 0) op_of_external.emplace(ext, int(p.ops.size()));
      p.ops.push_back(std::move(op));
    } else if (cat == Category::runtime) {
      const std::int64_t corr = r.integer_or(args, "correlation", -1), ext = r.integer_or(args, "External id", -1);
      if (corr >= 0 && ext >= 0) external_of_launch.emplace(corr, ext);
    } else {
      ProfiledKernel k;
      k.name = name_it->get<std::string>();
      k.start_us = r.number(e, "ts");
      k.dur_us = r.number(e, "dur");
      if (k.dur_us < 0) r.fail("dur", "expected a duration >= 0");
      k.device = r.integer_or(args, "device", 0);
      k.stream = r.integer_or(args, "stream", 0);
      grid_of(r, args, "grid", k.grid);
      grid_of(r, args, "block", k.block);
      k.origin = r.origin();
      pending.push_back({r.integer_or(args, "External id", -1), r.integer_or(args, "correlation", -1)});
      p.kernels.push_back(std::move(k));
    }
    ++r.index;
  }
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    std::int64_t ext = pending[i].external;
    if (ext < 0 || !op_of_external.count(ext)) {
      auto l = external_of_launch.find(pending[i].correlation);
      if (l != external_of_launch.end()) ext = l->second;
    }
    if (auto o = op_of_external.find(ext); o != op_of_external.end()) p.kernels[i].op = o->second;
  }
  link_op_parents(p.ops);
  // Kernels in start order (the trace's event order is by thread, not by time).
  std::vector<std::size_t> order(p.kernels.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p.kernels[a].start_us < p.kernels[b].start_us; });
  std::vector<ProfiledKernel> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(p.kernels[i]));
  p.kernels = std::move(sorted);
  return p;
}

Profile read_kineto_trace(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw InputError(file.string(), "file not found");
  if (is_gzip(file)) return parse_kineto_trace(read_gzip(file, std::string::npos), file.string());
  return parse_kineto_trace(read_file(file), file.string());
}

}  // namespace tcsim::workload
