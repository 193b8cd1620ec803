#include "numerics/golden_io.h"
#include "numerics/sparse/structured.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "common/text/yaml_document.h"
#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "numerics/formats/convert.h"

namespace fs = std::filesystem;

namespace tcsim::num {
namespace {

// Calls fn(line_number, line) for every line; a trailing run of empty lines is ignored, an
// empty line before the last non-empty one is an error (it would shift every later row).
template <class Fn>
void for_each_line(const fs::path& file, const std::string& text, Fn&& fn) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]).empty())
      throw InputError(location(file.string(), static_cast<long>(i + 1)),
                       "empty line inside the data (every line is one sample)");
    fn(static_cast<long>(i + 1), lines[i]);
  }
}

int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

std::uint32_t parse_hex_token(std::string_view tok, const fs::path& file, long line, std::size_t col) {
  std::string_view digits = tok;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  bool ok = digits.size() == 8;
  std::uint32_t v = 0;
  for (char ch : digits) {
    int d = hex_digit(ch);
    if (d < 0) ok = false;
    v = (v << 4) | static_cast<std::uint32_t>(d < 0 ? 0 : d);
  }
  if (!ok)
    throw InputError(location(file.string(), line),
                     "value " + std::to_string(col + 1) + " '" + std::string(tok) +
                         "': expected an 8-digit hex FP32 bit pattern such as 3f800000");
  return v;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != ',') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// "a_V100_fp16.txt" -> {"V100", "fp16"}; the format is the last two '_' fields when they name a
// format (fp8_e4m3), else the last one; the GPU name is everything before it.
std::optional<std::pair<std::string, std::string>> split_case_name(const std::string& name, char which) {
  if (name.size() < 7 || name[0] != which || name[1] != '_' || !name.ends_with(".txt")) return std::nullopt;
  std::string stem = name.substr(2, name.size() - 6);
  auto parts = split(stem, '_');
  if (parts.size() < 2) return std::nullopt;
  for (std::size_t n_fmt = 2; n_fmt >= 1; --n_fmt) {  // the longest format name first (fp8_e4m3)
    if (n_fmt >= parts.size()) continue;
    std::vector<std::string> fmt_parts(parts.end() - static_cast<long>(n_fmt), parts.end());
    std::vector<std::string> gpu_parts(parts.begin(), parts.end() - static_cast<long>(n_fmt));
    std::string fmt = join(fmt_parts, "_");
    if (parse_format(fmt)) return std::make_pair(join(gpu_parts, "_"), fmt);
  }
  return std::make_pair(join(std::vector<std::string>(parts.begin(), parts.end() - 1), "_"), parts.back());
}

void flatten_yaml(const YAML::Node& node, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out) {
  if (node.IsMap()) {
    for (const auto& kv : node) {
      std::string key = kv.first.as<std::string>();
      flatten_yaml(kv.second, prefix.empty() ? key : prefix + "." + key, out);
    }
  } else if (node.IsSequence()) {
    std::vector<std::string> items;
    for (const auto& item : node) items.push_back(item.IsScalar() ? item.as<std::string>() : "...");
    out.emplace_back(prefix, "[" + join(items, ", ") + "]");
  } else if (node.IsScalar()) {
    out.emplace_back(prefix, node.as<std::string>());
  } else {
    out.emplace_back(prefix, "");
  }
}

GoldenMeta read_meta(const fs::path& dir) {
  GoldenMeta meta;
  std::error_code ec;
  for (const fs::path& d : {dir, dir.parent_path()}) {
    for (const char* name : {"meta.yaml", "metadata.yaml"}) {
      fs::path f = d / name;
      if (!fs::is_regular_file(f, ec)) continue;
      meta.file = f;
      YAML::Node root;
      root = load_yaml_file(f.string());
      if (root.IsNull()) return meta;
      if (!root.IsMap()) throw InputError(location(f.string(), 1), "expected a map of metadata keys");
      try {
        flatten_yaml(root, "", meta.entries);
      } catch (const YAML::Exception& e) {
        throw InputError(location(f.string(), e.mark.line + 1), "unreadable metadata: " + e.msg);
      }
      return meta;
    }
  }
  return meta;
}

std::string row_count_error(std::size_t got, std::size_t want, const fs::path& ref) {
  return "has " + std::to_string(got) + " rows but " + ref.filename().string() + " has " +
         std::to_string(want) + " (every file holds one sample per line, in the same order)";
}

}  // namespace

std::optional<std::string> GoldenMeta::get(const std::string& key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return v;
  return std::nullopt;
}

fs::path GoldenCase::a_file() const { return dir / golden_file_name('a', gpu, input_name); }
fs::path GoldenCase::b_file() const { return dir / golden_file_name('b', gpu, input_name); }

std::string golden_file_name(char which, const std::string& gpu, const std::string& fmt) {
  return std::string(1, which) + "_" + gpu + "_" + fmt + ".txt";
}

std::optional<FormatId> parse_acc_name(const std::string& name) {
  auto f = parse_format(name);
  if (!f) return std::nullopt;
  if (*f == FormatId::fp32 || *f == FormatId::fp16 || *f == FormatId::int32) return f;
  return std::nullopt;
}

std::vector<std::uint32_t> read_hex_file(const fs::path& file, int& k) {
  const std::string text = read_file(file);
  std::vector<std::uint32_t> out;
  k = -1;
  for_each_line(file, text, [&](long line, std::string_view s) {
    auto toks = split_ws(s);
    if (k < 0) {
      k = static_cast<int>(toks.size());
    } else if (static_cast<int>(toks.size()) != k) {
      throw InputError(location(file.string(), line),
                       "ragged row: " + std::to_string(toks.size()) + " values, but line 1 has " +
                           std::to_string(k) + " (every row must have the same K)");
    }
    for (std::size_t i = 0; i < toks.size(); ++i) out.push_back(parse_hex_token(toks[i], file, line, i));
  });
  if (k <= 0) throw InputError(file.string(), "no data: expected one row of K hex FP32 patterns per line");
  return out;
}

std::vector<std::uint32_t> read_binary_file(const fs::path& file, std::size_t expected_rows) {
  const std::string text = read_file(file);
  std::vector<std::uint32_t> out;
  for_each_line(file, text, [&](long line, std::string_view s) {
    std::string_view t = trim(s);
    if (expected_rows && out.size() == expected_rows)
      throw InputError(location(file.string(), line),
                       "extra row: expected " + std::to_string(expected_rows) + " rows like the a/b files");
    bool ok = t.size() == 32;
    std::uint32_t v = 0;
    for (char ch : t) {
      if (ch != '0' && ch != '1') ok = false;
      v = (v << 1) | (ch == '1' ? 1u : 0u);
    }
    if (!ok)
      throw InputError(location(file.string(), line),
                       "expected a 32-character binary string of 0s and 1s (FP32 bits), got '" +
                           std::string(t.substr(0, 40)) + (t.size() > 40 ? "..." : "") + "' (" +
                           std::to_string(t.size()) + " characters)");
    out.push_back(v);
  });
  if (out.empty()) throw InputError(file.string(), "no data: expected one 32-character binary string per line");
  if (expected_rows && out.size() != expected_rows)
    throw InputError(location(file.string(), static_cast<long>(out.size()) + 1),
                     "file ends after " + std::to_string(out.size()) + " rows; expected " +
                         std::to_string(expected_rows) + " rows like the a/b files");
  return out;
}

std::vector<fs::path> find_golden_cases(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw InputError(root.string(), "not a directory (expected a tc-golden case directory)");
  auto holds_case = [](const fs::path& d) {
    std::error_code e;
    for (const auto& entry : fs::directory_iterator(d, e)) {
      std::string n = entry.path().filename().string();
      if (entry.is_regular_file(e) && n.starts_with("a_") && n.ends_with(".txt")) return true;
    }
    return false;
  };
  std::vector<fs::path> out;
  if (holds_case(root)) return {root};
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (it->is_directory(ec) && holds_case(it->path())) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw InputError(root.string(), "no tc-golden case found: expected a_<GPU>_<fmt>.txt files in it or below it");
  return out;
}

GoldenCase read_golden_case(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string(), "not a directory (expected a tc-golden case directory)");
  GoldenCase gc;
  gc.dir = dir;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());

  std::vector<fs::path> a_files;
  for (const auto& f : files) {
    std::string n = f.filename().string();
    if (n.starts_with("a_") && n.ends_with(".txt")) a_files.push_back(f);
  }
  if (a_files.empty())
    throw InputError(dir.string(), "no a_<GPU>_<fmt>.txt file: not a tc-golden case directory");
  if (a_files.size() > 1)
    throw InputError(dir.string(), "found " + std::to_string(a_files.size()) +
                                       " a_*.txt files; expected exactly one case (one <GPU>_<fmt>) per directory");
  auto names = split_case_name(a_files[0].filename().string(), 'a');
  if (!names || names->first.empty())
    throw InputError(a_files[0].string(), "expected the name a_<GPU>_<fmt>.txt, e.g. a_V100_fp16.txt");
  gc.gpu = names->first;
  gc.input_name = names->second;
  auto fmt = parse_format(gc.input_name);
  if (!fmt || *fmt == FormatId::fp32 || *fmt == FormatId::fp64 || *fmt == FormatId::int32)
    throw InputError(a_files[0].string(), "unknown input format '" + gc.input_name +
                                              "' in the file name; expected fp16, bf16, tf32, e4m3, e5m2, s8, u8, s4 or u4");
  gc.input = *fmt;

  gc.a = read_hex_file(gc.a_file(), gc.k);
  gc.rows = gc.a.size() / static_cast<std::size_t>(gc.k);
  fs::path bf = gc.b_file();
  if (!fs::is_regular_file(bf, ec))
    throw InputError(bf.string(), "missing: every a_<GPU>_<fmt>.txt needs its b_<GPU>_<fmt>.txt beside it");
  int kb = 0;
  gc.b = read_hex_file(bf, kb);
  if (kb != gc.k)
    throw InputError(location(bf.string(), 1), "rows have " + std::to_string(kb) + " values but " +
                                                   gc.a_file().filename().string() + " has " +
                                                   std::to_string(gc.k) + " (a and b must have the same K)");
  if (gc.b.size() / static_cast<std::size_t>(kb) != gc.rows) {
    std::size_t rb = gc.b.size() / static_cast<std::size_t>(kb);
    throw InputError(location(bf.string(), static_cast<long>(std::min(rb, gc.rows)) + 1),
                     row_count_error(rb, gc.rows, gc.a_file()));
  }

  // c and d files: <x>_<GPU>_<acc>.txt
  std::vector<fs::path> c_files;
  for (const auto& f : files) {
    std::string n = f.filename().string();
    for (char which : {'c', 'd'}) {
      std::string prefix = std::string(1, which) + "_" + gc.gpu + "_";
      if (!n.starts_with(prefix) || !n.ends_with(".txt")) continue;
      std::string acc = n.substr(prefix.size(), n.size() - prefix.size() - 4);
      auto accf = parse_acc_name(acc);
      if (!accf)
        throw InputError(f.string(), "unknown accumulator format '" + acc + "' in the file name; expected fp32, fp16 or s32");
      if (which == 'c') {
        c_files.push_back(f);
      } else {
        GoldenOutput o;
        o.acc_name = acc;
        o.acc = *accf;
        o.file = f;
        o.d = read_binary_file(f, gc.rows);
        gc.outputs.push_back(std::move(o));
      }
    }
  }
  if (c_files.empty())
    throw InputError((dir / golden_file_name('c', gc.gpu, "fp32")).string(),
                     "missing: expected the accumulator inputs c_" + gc.gpu + "_<acc>.txt beside " +
                         gc.a_file().filename().string());
  // Several c files: prefer the FP32 one (the shipped data has only c_<GPU>_fp32.txt).
  fs::path cf = c_files[0];
  for (const auto& f : c_files)
    if (f.filename().string() == golden_file_name('c', gc.gpu, "fp32")) cf = f;
  gc.c_file = cf;
  std::string cn = cf.filename().string();
  gc.c_name = cn.substr(3 + gc.gpu.size(), cn.size() - 7 - gc.gpu.size());
  // The accumulator input's type must suit the inputs: integer MMAs accumulate in s32, the others
  // in floating point (an s32 c file beside fp16 inputs would be read as float bit patterns).
  if (const auto c_acc = parse_acc_name(gc.c_name); c_acc && format_is_integer(gc.input) != format_is_integer(*c_acc))
    throw InputError(cf.string(), "an " + gc.c_name + " accumulator input for " + std::string(format_name(gc.input)) +
                                      " inputs; expected " + (format_is_integer(gc.input) ? "s32" : "fp32 or fp16"));
  gc.c = read_binary_file(cf, gc.rows);
  std::stable_sort(gc.outputs.begin(), gc.outputs.end(), [](const GoldenOutput& x, const GoldenOutput& y) {
    bool xf = x.acc_name == "fp32", yf = y.acc_name == "fp32";
    if (xf != yf) return xf;
    return x.acc_name < y.acc_name;
  });
  gc.meta = read_meta(dir);
  return gc;
}

std::string format_binary_lines(const std::vector<std::uint32_t>& bits) {
  std::string out;
  out.reserve(bits.size() * 33);
  for (std::uint32_t v : bits) {
    for (int i = 31; i >= 0; --i) out.push_back(((v >> i) & 1u) ? '1' : '0');
    out.push_back('\n');
  }
  return out;
}

std::string format_hex_lines(const std::vector<std::uint32_t>& bits, int k) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bits.size() * 9 + bits.size() / static_cast<std::size_t>(std::max(k, 1)) + 1);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    for (int s = 28; s >= 0; s -= 4) out.push_back(digits[(bits[i] >> s) & 0xFu]);
    out.push_back(' ');  // the shipped files end every value, the last too, with a space
    if ((i + 1) % static_cast<std::size_t>(k) == 0) out.push_back('\n');
  }
  return out;
}

void write_binary_file(const fs::path& file, const std::vector<std::uint32_t>& bits) {
  write_file_atomically(file, format_binary_lines(bits));
}

void write_hex_file(const fs::path& file, const std::vector<std::uint32_t>& bits, int k) {
  if (k <= 0 || bits.size() % static_cast<std::size_t>(k) != 0)
    throw InputError(file.string(), "internal: hex data is not a whole number of rows of K values");
  write_file_atomically(file, format_hex_lines(bits, k));
}

void write_golden_case(const fs::path& dir, const GoldenCase& gc) {
  write_hex_file(dir / golden_file_name('a', gc.gpu, gc.input_name), gc.a, gc.k);
  write_hex_file(dir / golden_file_name('b', gc.gpu, gc.input_name), gc.b, gc.k);
  write_binary_file(dir / golden_file_name('c', gc.gpu, gc.c_name.empty() ? "fp32" : gc.c_name), gc.c);
  for (const auto& o : gc.outputs) write_binary_file(dir / golden_file_name('d', gc.gpu, o.acc_name), o.d);
}

}  // namespace tcsim::num

// ---- Emulating a case ---------------------------------------------------------------------------
namespace tcsim::num {

std::optional<Arch> gpu_arch(const std::string& gpu) {
  // "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB", "Ada", "L40S", "B200", "RTXPRO6000": the GPU
  // name table lives with the architectures (parse_arch). A30 is GA100 (sm_80; Khattak's HPEC-2025
  // run, spec section 1); A2 is GA107 (sm_86; A2TC.m models it as A100TC.m); "Ada" is the
  // Khattak-Mikaitis folder name of their RTX 1000 Ada (AdaTC.m).
  return parse_arch(gpu);
}

GoldenPlan plan_golden(const GoldenCase& gc, FormatId acc, const GoldenOptions& opt) {
  GoldenPlan plan;
  plan.acc = acc;
  const std::string meta_file = gc.meta.file.string();
  if (opt.arch) {
    plan.arch = *opt.arch;
    plan.arch_from = "--arch";
  } else if (auto a = gc.meta.get("arch")) {
    plan.arch = parse_arch_or_throw(*a, location(meta_file, 0, "arch"));
    plan.arch_from = gc.meta.file.filename().string();
  } else if (auto a = gpu_arch(gc.gpu)) {
    plan.arch = *a;
    plan.arch_from = "GPU name " + gc.gpu;
  } else {
    throw InputError(gc.a_file().string(), "unknown GPU '" + gc.gpu +
                                               "': cannot tell its architecture; give --arch (sm_70 ... sm_120 or a GPU name) "
                                               "(or `arch:` in meta.yaml)");
  }
  const FormatId in = gc.input;
  if (!opt.instruction.empty()) {
    plan.instruction = &find_instruction(plan.arch, opt.instruction, in, in, acc, "--instr");
    plan.instr_from = "--instr";
  } else if (auto name = gc.meta.get("instruction")) {
    plan.instruction = &find_instruction(plan.arch, *name, in, in, acc, location(meta_file, 0, "instruction"));
    plan.instr_from = gc.meta.file.filename().string();
  } else {
    for (const auto& ins : instructions(plan.arch))
      if (ins.family == InstrFamily::wmma && ins.a_fmt == in && ins.b_fmt == in && ins.acc_fmt == acc) {
        plan.instruction = &ins;
        plan.instr_from = "wmma default";
        break;
      }
    if (!plan.instruction) {
      plan.instruction = &default_instruction(plan.arch, in, acc, gc.a_file().string());
      plan.instr_from = "default";
    }
  }
  return plan;
}

Bits golden_operand(const GoldenCase& gc, char which, std::size_t r, int j) {
  const std::uint32_t x = (which == 'a' ? gc.a_row(r) : gc.b_row(r))[j];
  if (gc.input == FormatId::tf32 || gc.input == FormatId::fp32) return x;  // tf32: fed raw, as on the GPU
  ConvertOptions exact;
  bool inexact = false;
  Bits v = convert(x, FormatId::fp32, gc.input, exact, inexact);
  if (inexact) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", x);
    throw InputError(location((which == 'a' ? gc.a_file() : gc.b_file()).string(), static_cast<long>(r) + 1),
                     "value " + std::to_string(j + 1) + " " + hex + " (" + format_value(x, FormatId::fp32) +
                         ") is not representable in " + std::string(format_name(gc.input)));
  }
  return v;
}

Bits golden_c(const GoldenCase& gc, std::size_t r, FormatId acc) {
  auto c_fmt = parse_acc_name(gc.c_name);
  const FormatId src = (c_fmt && *c_fmt == FormatId::int32) ? FormatId::int32 : FormatId::fp32;
  if (src == acc) return gc.c[r];
  return convert(gc.c[r], src, acc, ConvertOptions{});  // FP32 -> FP16 with RNE, as the GPU harness did
}

Bits d_file_to_acc(std::uint32_t bits, FormatId acc) {
  if (acc == FormatId::fp16) return convert(bits, FormatId::fp32, FormatId::fp16, ConvertOptions{});
  return bits;
}

std::uint32_t acc_to_d_file(Bits bits, FormatId acc) {
  if (acc == FormatId::fp16) return to_fp32(bits, FormatId::fp16);
  return static_cast<std::uint32_t>(bits & 0xFFFFFFFFu);
}

namespace {
// A sparse (mma.sp) case: the a files hold the dense rows (pruned entries +0). meta.yaml
// `sparse_meta: 0xE` gives the metadata nibble of every group (what the CUDA probe uses); without
// it each row is pruned with prune_2_4. Every instruction of a chain runs on its own k range.
std::vector<std::uint32_t> emulate_sparse(const GoldenCase& gc, const GoldenPlan& plan, const MmaOptions& mma) {
  const Instruction& ins = *plan.instruction;
  const std::string meta_file = gc.meta.file.string();
  std::optional<std::uint8_t> nibble;
  if (auto m = gc.meta.get("sparse_meta")) {
    const std::string where = location(meta_file, 0, "sparse_meta");
    unsigned long v = 16;
    try {
      std::size_t used = 0;
      v = std::stoul(*m, &used, 0);
      if (used != m->size()) v = 16;
    } catch (const std::exception&) {
      v = 16;
    }
    if (v > 15 || !valid_meta_nibble(static_cast<std::uint8_t>(v)))
      throw InputError(where, "'" + *m + "' is not 2:4 metadata: expected one nibble i0 | i1<<2 with i0 < i1: 0x4, 0x8, 0x9, 0xC, 0xD or 0xE");
    nibble = static_cast<std::uint8_t>(v);
  }
  const int k = ins.k, T = (gc.k + k - 1) / k, K = T * k;
  std::vector<std::uint32_t> out(gc.rows);
  for (std::size_t r = 0; r < gc.rows; ++r) {
    BitMatrix A = BitMatrix::Zero(1, K), B = BitMatrix::Zero(K, 1), C(1, 1);
    for (int j = 0; j < gc.k; ++j) {
      A(0, j) = golden_operand(gc, 'a', r, j);
      B(j, 0) = golden_operand(gc, 'b', r, j);
    }
    C(0, 0) = golden_c(gc, r, plan.acc);
    Sparse24 S;
    if (nibble) {
      const int i0 = *nibble & 3, i1 = (*nibble >> 2) & 3;
      BitMatrix kept(1, K / 2);
      for (int g = 0; g < K / 4; ++g) {
        for (int i = 0; i < 4; ++i)
          if (i != i0 && i != i1 && to_double(A(0, 4 * g + i), gc.input) != 0.0)
            throw InputError(location(gc.a_file().string(), static_cast<long>(r) + 1),
                             "value " + std::to_string(4 * g + i + 1) + " is not zero but sparse_meta " + *gc.meta.get("sparse_meta") +
                                 " drops position " + std::to_string(i) + " of its group of four (2:4 data keeps only i0, i1)");
        kept(0, 2 * g) = A(0, 4 * g + i0);
        kept(0, 2 * g + 1) = A(0, 4 * g + i1);
      }
      S = make_sparse_24(gc.input, 1, K, kept, std::vector<std::uint8_t>(static_cast<std::size_t>(K / 4), *nibble), meta_file);
    } else {
      S = prune_2_4(A, gc.input);
    }
    GemmOptions go;
    go.threads = 1;
    go.mma = mma;
    out[r] = acc_to_d_file(sparse_gemm(ins, S, B, C, go)(0, 0), plan.acc);
  }
  return out;
}
}  // namespace

std::vector<std::uint32_t> emulate_golden(const GoldenCase& gc, const GoldenPlan& plan, const MmaOptions& mma) {
  const Instruction& ins = *plan.instruction;
  if (ins.sparse) return emulate_sparse(gc, plan, mma);
  if (gc.k > ins.k && gc.k % ins.k != 0)
    throw InputError(gc.a_file().string(),
                     "K = " + std::to_string(gc.k) + " does not fit " + ins.describe() + " (k = " +
                         std::to_string(ins.k) + "): expected at most " + std::to_string(ins.k) +
                         " values per row (the rest zero) or a multiple of " + std::to_string(ins.k));
  std::vector<std::uint32_t> out(gc.rows);
  std::vector<Bits> a(static_cast<std::size_t>(gc.k)), b(a.size());
  for (std::size_t r = 0; r < gc.rows; ++r) {
    for (int j = 0; j < gc.k; ++j) {
      a[static_cast<std::size_t>(j)] = golden_operand(gc, 'a', r, j);
      b[static_cast<std::size_t>(j)] = golden_operand(gc, 'b', r, j);
    }
    Bits d = dot(ins, a, b, golden_c(gc, r, plan.acc), mma);
    out[r] = acc_to_d_file(d, plan.acc);
  }
  return out;
}

}  // namespace tcsim::num
