#include "workload/network/reader/layer_fields.h"

#include <cctype>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "common/error.h"
#include "common/text/strings.h"
#include "config/suggest.h"

namespace tcsim::workload {
namespace {

const std::vector<std::string> kCommonKeys = {"name", "kind", "input", "train_only"};

// The keys of each kind beyond the common ones; `inputs` only where a layer reads several.
std::vector<std::string> kind_keys(LayerKind kind) {
  switch (kind) {
    case LayerKind::conv2d: return {"out_channels", "kernel", "stride", "padding", "dilation", "groups", "bias"};
    case LayerKind::linear: return {"out_features", "bias", "tied_to", "first_token", "tokens"};
    case LayerKind::matmul: return {"inputs", "m", "n", "k", "batch"};
    case LayerKind::attention: return {"inputs", "heads", "kv_heads", "head_dim", "causal", "cross", "impl", "dropout"};
    case LayerKind::add: return {"inputs"};
    case LayerKind::mul: return {"inputs", "scalar"};
    case LayerKind::rms_norm:
    case LayerKind::rope: return {"form"};
    case LayerKind::moe: return {"experts", "ffn", "router", "top_k", "capacity", "activation", "gated", "dispatch", "dropout", "jitter"};
    case LayerKind::position_bias: return {"heads", "buckets", "max_distance", "causal"};
    case LayerKind::rnn: return {"cell", "hidden", "layers", "bidirectional", "bias", "input_mode", "dropout"};
    case LayerKind::dropout: return {"probability"};
    case LayerKind::gelu: return {"form"};
    case LayerKind::max_pool:
    case LayerKind::avg_pool: return {"kernel", "stride", "padding"};
    case LayerKind::reshape:
    case LayerKind::parameter: return {"shape"};
    case LayerKind::concat: return {"inputs", "axis"};
    case LayerKind::embedding: return {"vocab", "dim", "tied_to", "first_position"};
    default: return {};
  }
}

class Fields {
 public:
  Fields(const YAML::Node& map, const Names& names, LayerSpec& spec) : map_(map), names_(names), spec_(spec) {}

  std::string at(const std::string& key) const { return spec_.site.at(spec_.layer.name, key); }
  bool has(const std::string& key) const { return static_cast<bool>(map_[key]); }
  YAML::Node node(const std::string& key) const { return map_[key]; }

  [[noreturn]] void missing(const std::string& key) const {
    throw InputError(at(key), std::string("missing (required for a ") + to_string(spec_.layer.kind) + " layer)");
  }
  std::int64_t required_positive(const std::string& key) const {
    if (!has(key)) missing(key);
    return positive(key, 0);
  }
  std::int64_t positive(const std::string& key, std::int64_t fallback) const {
    return has(key) ? positive_value(map_[key], key) : fallback;
  }
  std::int64_t integer(const std::string& key) const { return read_int(map_[key], names_, at(key)); }
  std::int64_t positive_value(const YAML::Node& value, const std::string& key) const {
    const std::int64_t v = read_int(value, names_, at(key));
    if (v <= 0) throw InputError(at(key), "expected a positive integer, got " + std::to_string(v));
    return v;
  }
  // An int for both axes or [h, w]; padding may be 0, the others must be positive.
  void pair(const std::string& key, std::int64_t& h, std::int64_t& w, bool allow_zero) const {
    if (!has(key)) return;
    const YAML::Node v = map_[key];
    const auto one = [&](const YAML::Node& n) {
      const std::int64_t x = read_int(n, names_, at(key));
      if (x < 0 || (x == 0 && !allow_zero))
        throw InputError(at(key), std::string("expected a ") + (allow_zero ? "non-negative" : "positive") +
                                      " integer or [height, width], got " + std::to_string(x));
      return x;
    };
    if (v.IsSequence()) {
      if (v.size() != 2)
        throw InputError(at(key), "expected an integer or [height, width], got a list of " + std::to_string(v.size()));
      h = one(v[0]);
      w = one(v[1]);
    } else {
      h = w = one(v);
    }
  }
  bool flag(const std::string& key, bool fallback) const { return has(key) ? read_bool(map_[key], at(key)) : fallback; }

 private:
  const YAML::Node& map_;
  const Names& names_;
  LayerSpec& spec_;
};

// A dropout probability in [0, 1) (a dropout layer's `probability`, an attention layer's `dropout`).
double read_probability(const Fields& f, const std::string& key) {
  const double p = read_number(f.node(key), f.at(key));
  if (!(p >= 0 && p < 1)) throw InputError(f.at(key), "expected a probability in [0, 1), got " + f.node(key).Scalar());
  return p;
}

// An enumerated field: the value named by its YAML spelling, `fallback` when the key is absent, an
// error listing the spellings otherwise.
template <class T>
T read_choice(const Fields& f, const std::string& key, std::initializer_list<std::pair<const char*, T>> names, T fallback) {
  if (!f.has(key)) return fallback;
  const std::string text = read_text(f.node(key), f.at(key));
  std::string expected;
  std::size_t i = 0;
  for (const auto& [name, value] : names) {
    if (text == name) return value;
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(name);
    ++i;
  }
  throw InputError(f.at(key), "expected " + expected + ", got '" + text + "'");
}

void check_name(const std::string& name, const std::string& where) {
  bool ok = !name.empty();
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  if (!ok)
    throw InputError(where, "expected a layer name of letters, digits, '_' and '-', got '" + name +
                                "' (a '.' is reserved for repeat groups)");
  if (name == "input") throw InputError(where, "'input' is reserved: it names the network's (or a repeat block's) input");
}

void read_inputs(const Fields& f, LayerSpec& spec) {
  if (f.has("input") && f.has("inputs")) throw InputError(f.at("inputs"), "give either `input` or `inputs`, not both");
  if (f.has("input")) spec.input_names.push_back(read_text(f.node("input"), f.at("input")));
  if (f.has("inputs")) {
    const YAML::Node list = f.node("inputs");
    if (!list.IsSequence() || list.size() == 0)
      throw InputError(f.at("inputs"), "expected a list of earlier layers' names, e.g. [conv3, down]");
    for (const auto& n : list) spec.input_names.push_back(read_text(n, f.at("inputs")));
  }
}

void read_window(const Fields& f, Layer& l) {
  if (!f.has("kernel")) f.missing("kernel");
  f.pair("kernel", l.kernel_h, l.kernel_w, false);
  f.pair("stride", l.stride_h, l.stride_w, false);
  f.pair("padding", l.pad_h, l.pad_w, true);
}

void read_kind_fields(const Fields& f, LayerSpec& spec) {
  Layer& l = spec.layer;
  switch (l.kind) {
    case LayerKind::conv2d:
      l.out_channels = f.required_positive("out_channels");
      read_window(f, l);
      f.pair("dilation", l.dilation_h, l.dilation_w, false);
      l.groups = f.positive("groups", 1);
      l.bias = f.flag("bias", false);
      return;
    case LayerKind::max_pool:
    case LayerKind::avg_pool:
      if (!f.has("stride")) {  // PyTorch's default stride is the kernel
        f.pair("kernel", l.stride_h, l.stride_w, false);
      }
      read_window(f, l);
      return;
    case LayerKind::linear:
      l.out_features = f.required_positive("out_features");
      l.bias = f.flag("bias", true);
      l.first_token = f.flag("first_token", false);
      if (f.has("tokens")) {
        if (l.first_token) throw InputError(f.at("tokens"), "tokens and first_token exclude each other");
        l.tokens = f.required_positive("tokens");
      }
      return;
    case LayerKind::matmul:
      l.m = f.required_positive("m");
      l.n = f.required_positive("n");
      l.k = f.required_positive("k");
      l.matmul_batch = f.positive("batch", 1);
      return;
    case LayerKind::attention:
      l.heads = f.required_positive("heads");
      l.kv_heads = f.positive("kv_heads", l.heads);
      l.head_dim = f.required_positive("head_dim");
      l.causal = f.flag("causal", false);
      l.impl = read_choice(f, "impl",
                           {{"auto", AttentionImpl::automatic}, {"fused", AttentionImpl::fused}, {"unfused", AttentionImpl::unfused}},
                           AttentionImpl::automatic);
      if (f.has("dropout")) l.probability = read_probability(f, "dropout");
      l.cross = f.flag("cross", false);
      if (l.cross && l.causal) throw InputError(f.at("cross"), "cross-attention reads another sequence's keys: it cannot be causal");
      return;
    case LayerKind::mul:
      if (f.has("scalar")) {
        l.has_scalar = true;
        l.scalar = read_number(f.node("scalar"), f.at("scalar"));
        if (!std::isfinite(l.scalar)) throw InputError(f.at("scalar"), "expected a finite number");
      }
      return;
    case LayerKind::rms_norm:
      l.rms_form = read_choice(f, "form", {{"fused", RmsNormForm::fused}, {"eager", RmsNormForm::eager}}, RmsNormForm::fused);
      return;
    case LayerKind::rope:
      l.rope_form = read_choice(f, "form", {{"fused", RopeForm::fused}, {"eager", RopeForm::eager}}, RopeForm::fused);
      return;
    case LayerKind::moe: {
      l.experts = f.required_positive("experts");
      l.ffn = f.required_positive("ffn");
      l.capacity = f.positive("capacity", 0);  // 0: one expert's even share (shape inference)
      l.activation = read_choice(f, "activation",
                                 {{"relu", LayerKind::relu}, {"gelu", LayerKind::gelu}, {"silu", LayerKind::silu}}, LayerKind::relu);
      l.dispatch = read_choice(f, "dispatch",
                               {{"routed", MoeDispatch::routed}, {"padded", MoeDispatch::padded}, {"grouped", MoeDispatch::grouped}},
                               MoeDispatch::routed);
      if (f.has("dropout")) l.probability = read_probability(f, "dropout");
      l.jitter = f.flag("jitter", false);
      l.gated = f.flag("gated", false);
      l.router = read_choice(f, "router", {{"switch", MoeRouter::switch_top1}, {"topk", MoeRouter::topk}}, MoeRouter::switch_top1);
      if (l.router == MoeRouter::switch_top1) {
        if (f.has("top_k") && f.integer("top_k") != 1)
          throw InputError(f.at("top_k"), "the switch router sends each token to one expert; router: topk takes top_k");
        if (l.dispatch == MoeDispatch::grouped)
          throw InputError(f.at("dispatch"), "dispatch: grouped (an inference engine's fused MoE kernels) takes router: topk");
      } else {
        l.top_k = f.positive("top_k", 2);
        if (l.top_k > l.experts)
          throw InputError(f.at("top_k"), "top_k " + std::to_string(l.top_k) + " exceeds the " + std::to_string(l.experts) + " experts");
        if (f.has("capacity")) throw InputError(f.at("capacity"), "the topk router drops no tokens: capacity applies to router: switch");
        if (l.dispatch == MoeDispatch::padded)
          throw InputError(f.at("dispatch"), "the topk router's loop runs each expert on its own tokens: dispatch: padded applies to router: switch");
      }
      return;
    }
    case LayerKind::position_bias:
      l.heads = f.required_positive("heads");
      if (f.has("buckets")) {
        l.buckets = f.integer("buckets");
        if (l.buckets < 0 || l.buckets == 1)
          throw InputError(f.at("buckets"), "expected 0 (no learned bias) or at least 2 buckets, got " + std::to_string(l.buckets));
      } else {
        l.buckets = 32;
      }
      l.max_distance = f.positive("max_distance", 128);
      l.causal = f.flag("causal", false);
      return;
    case LayerKind::rnn:
      if (!f.has("cell")) f.missing("cell");
      l.rnn_cell = read_choice(f, "cell",
                               {{"lstm", RnnCell::lstm}, {"gru", RnnCell::gru}, {"tanh", RnnCell::tanh}, {"relu", RnnCell::relu}},
                               RnnCell::lstm);
      l.hidden = f.required_positive("hidden");
      l.rnn_layers = f.positive("layers", 1);
      l.bidirectional = f.flag("bidirectional", false);
      l.bias = f.flag("bias", true);
      l.skip_input = read_choice(f, "input_mode", {{"linear", false}, {"skip", true}}, false);
      if (f.has("dropout")) l.probability = read_probability(f, "dropout");
      return;
    case LayerKind::dropout:
      if (!f.has("probability")) f.missing("probability");
      l.probability = read_probability(f, "probability");
      return;
    case LayerKind::gelu:
      l.gelu_form = read_choice(f, "form", {{"erf", GeluForm::erf}, {"tanh_eager", GeluForm::tanh_eager}}, GeluForm::erf);
      return;
    case LayerKind::reshape:
    case LayerKind::parameter: {
      if (!f.has("shape")) f.missing("shape");
      const YAML::Node s = f.node("shape");
      if (!s.IsSequence() || s.size() == 0) throw InputError(f.at("shape"), "expected a list of dimensions, e.g. [16, 64]");
      for (const auto& d : s) spec.requested.push_back(f.positive_value(d, "shape"));
      return;
    }
    case LayerKind::concat:
      if (f.has("axis")) l.axis = f.integer("axis");
      return;
    case LayerKind::embedding:
      l.vocab = f.required_positive("vocab");
      spec.requested = {f.required_positive("dim")};
      if (f.has("first_position")) {
        l.first_position = f.integer("first_position");
        if (l.first_position < 0 || l.first_position >= l.vocab)
          throw InputError(f.at("first_position"), "expected the table row of position 0, 0 to vocab - 1 = " +
                                                       std::to_string(l.vocab - 1) + ", got " + std::to_string(l.first_position));
      }
      return;
    default:
      return;
  }
}

std::vector<std::string> all_kind_names() {
  std::vector<std::string> all;
  for (int k = 0; k <= static_cast<int>(kLastLayerKind); ++k) all.push_back(to_string(static_cast<LayerKind>(k)));
  return all;
}

}  // namespace

std::vector<std::string> layer_keys(LayerKind kind) {
  std::vector<std::string> keys = kCommonKeys;
  for (auto& k : kind_keys(kind)) keys.push_back(k);
  return keys;
}

LayerSpec read_layer_fields(const YAML::Node& node, const std::string& file, const std::string& list_path,
                            const Names& names) {
  LayerSpec spec;
  spec.site.file = file;
  spec.site.line = line_of(node);
  spec.layer.where = location(file, spec.site.line);
  if (!node.IsMap())
    throw InputError(location(file, spec.site.line, list_path),
                     "expected a layer, a map such as {name: fc, kind: linear, out_features: 1000}");
  for (auto it = node.begin(); it != node.end(); ++it)
    if (it->first.IsScalar()) spec.site.field_lines[it->first.Scalar()] = line_of(it->first);

  if (!node["name"]) throw InputError(location(file, spec.site.line, list_path + ".name"), "missing (every layer needs a name)");
  spec.layer.name = read_text(node["name"], location(file, spec.site.field_lines["name"], list_path + ".name"));
  check_name(spec.layer.name, spec.site.at(spec.layer.name, "name"));
  if (!node["kind"]) throw InputError(spec.site.at(spec.layer.name, "kind"), "missing (conv2d, linear, attention, ...)");
  const std::string kind = read_text(node["kind"], spec.site.at(spec.layer.name, "kind"));
  if (!parse_layer_kind(kind, spec.layer.kind)) {
    const auto all = all_kind_names();
    throw InputError(spec.site.at(spec.layer.name, "kind"), "unknown layer kind '" + kind + "' (expected one of: " +
                                                              join(all, ", ") + ")" + config::did_you_mean(kind, all));
  }
  check_keys(node, layer_keys(spec.layer.kind), std::string("a ") + kind + " layer",
             [&](const std::string& key, long line) {
               return location(file, line, "layer '" + spec.layer.name + "'" + (key.empty() ? "" : ": " + key));
             });

  Fields f(node, names, spec);
  read_inputs(f, spec);
  spec.layer.train_only = f.flag("train_only", false);
  if (f.has("tied_to")) spec.layer.tied_to = read_text(f.node("tied_to"), f.at("tied_to"));
  read_kind_fields(f, spec);
  return spec;
}

}  // namespace tcsim::workload
