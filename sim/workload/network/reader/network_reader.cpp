// Reading a models/*.yaml network: the header (task, input, defaults, constants, reference), then
// the layers in order, each resolved against the layers before it and shape-inferred at once, so a
// reference to a later layer is an error. A `repeat:` block is kept as one copy whose layers carry
// count = N and group = the block's name.
#include "workload/network/reader/network_reader.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <map>

#include "common/text/yaml_document.h"
#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/text/strings.h"
#include "config/suggest.h"
#include "workload/network/reader/layer_fields.h"
#include "workload/network/reader/shape_inference.h"
#include "workload/network/reader/yaml_fields.h"

namespace tcsim::workload {
namespace {

const std::vector<std::string> kTopKeys = {"version", "kind",      "name",      "source",    "task",  "input",
                                           "defaults", "optimizer", "constants", "reference", "layers"};
const std::vector<std::string> kRepeatKeys = {"repeat", "name", "layers"};

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Where the layers being read sit: the top level, or inside a repeat block.
struct Scope {
  std::string group;     // "" at the top level
  std::int64_t count = 1;
  int block_input = -1;  // what `input` names: the network input (-1) or the layer feeding the block
};

class Reader {
 public:
  Reader(const std::string& file, const NetworkVariables& vars) : file_(file), vars_(vars) {}
  Network read(const std::string& text);

 private:
  std::string at(const YAML::Node& node, const std::string& key) const {
    return location(file_, line_of(node), key);
  }
  void header(const YAML::Node& root);
  void bind_variables(const YAML::Node& root);
  void constants(const YAML::Node& node);
  void reference(const YAML::Node& node);
  void collect_names(const YAML::Node& layers, const std::string& group);
  void repeat_block(const YAML::Node& node, std::size_t index);
  void layer(const YAML::Node& node, const std::string& list_path, const Scope& scope);
  int resolve(const std::string& name, const Scope& scope, const std::string& self, const std::string& where) const;
  const Shape& shape_of(int index) const { return index < 0 ? net_.input : net_.layers[static_cast<std::size_t>(index)].output; }
  void check_tied(Layer& l, const Scope& scope, const LayerSite& site) const;

  std::string file_;
  NetworkVariables vars_;
  Network net_;
  Names names_;                                // batch, seq, past, constants
  std::map<std::string, int> index_;           // full name -> index in net_.layers
  std::map<std::string, long> declared_;       // every full layer name in the file -> its line
  std::map<std::string, long> groups_;         // repeat block names -> their lines
  int previous_ = -1;                          // the layer a default input reads
};

void Reader::header(const YAML::Node& root) {
  check_keys(root, kTopKeys, "a network file", [&](const std::string& key, long line) { return location(file_, line, key); });
  if (!root["version"]) throw InputError(location(file_, 1, "version"), "missing (expected version: 1)");
  if (read_text(root["version"], at(root["version"], "version")) != "1")
    throw InputError(at(root["version"], "version"), "expected version: 1 (the only network format version)");
  if (!root["kind"] || read_text(root["kind"], at(root["kind"], "kind")) != "network")
    throw InputError(root["kind"] ? at(root["kind"], "kind") : location(file_, 1, "kind"), "expected kind: network");
  if (!root["name"]) throw InputError(location(file_, 1, "name"), "missing (the network's name)");
  net_.name = read_text(root["name"], at(root["name"], "name"));
  if (root["source"]) net_.source = read_text(root["source"], at(root["source"], "source"));
  if (!root["task"]) throw InputError(location(file_, 1, "task"), "missing (image or tokens)");
  net_.task = read_text(root["task"], at(root["task"], "task"));
  if (net_.task != "image" && net_.task != "tokens" && net_.task != "sequence")
    throw InputError(at(root["task"], "task"), "expected image (input [C, H, W]), tokens (input [seq] token ids) or sequence "
                                               "(input [seq, features]), got '" + net_.task + "'");
  if (root["optimizer"]) {
    net_.optimizer = read_text(root["optimizer"], at(root["optimizer"], "optimizer"));
    if (net_.optimizer != "sgd" && net_.optimizer != "adam" && net_.optimizer != "adamw")
      throw InputError(at(root["optimizer"], "optimizer"), "expected sgd, adam or adamw, got '" + net_.optimizer + "'");
  }
}

void Reader::bind_variables(const YAML::Node& root) {
  const bool tokens = net_.has_sequence();  // token and sequence networks take seq (and past)
  std::optional<std::int64_t> batch = vars_.batch, seq = vars_.seq, past = vars_.past;
  if (const YAML::Node d = root["defaults"]) {
    if (!d.IsMap()) throw InputError(at(d, "defaults"), "expected a map such as {batch: 256}");
    check_keys(d, tokens ? std::vector<std::string>{"batch", "seq", "past"} : std::vector<std::string>{"batch"},
               tokens ? "defaults (token and sequence networks)" : "defaults (image networks take only batch)",
               [&](const std::string& key, long line) { return location(file_, line, "defaults." + key); });
    // Every default is checked, also the ones a command-line value replaces: a model file with a
    // bad default is wrong whatever this run's options are.
    const Names none;
    auto read_default = [&](const char* key, std::int64_t least, const char* expected) -> std::optional<std::int64_t> {
      if (!d[key]) return std::nullopt;
      const std::string path = std::string("defaults.") + key;
      const std::int64_t v = read_int(d[key], none, at(d[key], path));
      if (v < least) throw InputError(at(d[key], path), std::string("expected ") + expected + ", got " + std::to_string(v));
      return v;
    };
    const auto default_batch = read_default("batch", 1, "a positive batch size");
    const auto default_seq = read_default("seq", 1, "a positive sequence length");
    const auto default_past = read_default("past", 0, "a KV-cache length of 0 or more");
    if (!batch) batch = default_batch;
    if (!seq) seq = default_seq;
    if (!past) past = default_past;
  }
  if (!tokens && (vars_.seq || vars_.past))
    throw InputError(at(root["task"], "task"), "seq and past apply to token and sequence networks; '" + net_.name + "' is an image network");
  net_.batch = batch.value_or(1);
  if (net_.batch <= 0) throw InputError(location(file_, 0, "batch"), "expected a positive batch size, got " + std::to_string(net_.batch));
  names_["batch"] = net_.batch;
  if (tokens) {
    if (!seq) throw InputError(location(file_, 0, "seq"), "no sequence length: give defaults: {seq: N} or --seq");
    net_.seq = *seq;
    net_.past = past.value_or(0);
    if (net_.seq <= 0) throw InputError(location(file_, 0, "seq"), "expected a positive sequence length, got " + std::to_string(net_.seq));
    if (net_.past < 0) throw InputError(location(file_, 0, "past"), "expected a KV-cache length of 0 or more, got " + std::to_string(net_.past));
  }
  names_["seq"] = net_.seq;
  names_["past"] = net_.past;
}

void Reader::constants(const YAML::Node& node) {
  if (!node) return;
  if (!node.IsMap()) throw InputError(at(node, "constants"), "expected a map of names to integers, e.g. {hidden: 768}");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string where = location(file_, line_of(it->first), "constants." + it->first.Scalar());
    const std::string name = it->first.Scalar();
    if (!is_identifier(name)) throw InputError(where, "expected a name of letters, digits and '_' not starting with a digit");
    if (names_.count(name))
      throw InputError(where, name == "batch" || name == "seq" || name == "past"
                                  ? "'" + name + "' is a variable; it cannot be a constant"
                                  : "duplicate constant");
    names_[name] = read_int(it->second, names_, where);  // may use the variables and earlier constants
  }
}

void Reader::reference(const YAML::Node& node) {
  if (!node) return;
  if (!node.IsMap()) throw InputError(at(node, "reference"), "expected a map such as {params: 25557032, gmacs: 4.09, source: ...}");
  check_keys(node, {"params", "gmacs", "source"}, "reference",
             [&](const std::string& key, long line) { return location(file_, line, "reference." + key); });
  if (node["params"]) {
    net_.reference_params = read_int(node["params"], Names{}, at(node["params"], "reference.params"));
    if (net_.reference_params <= 0) throw InputError(at(node["params"], "reference.params"), "expected a positive parameter count");
  }
  if (node["gmacs"]) {
    net_.reference_gmacs = read_number(node["gmacs"], at(node["gmacs"], "reference.gmacs"));
    if (!(net_.reference_gmacs > 0)) throw InputError(at(node["gmacs"], "reference.gmacs"), "expected a positive number of GMACs");
  }
  if (node["source"]) net_.reference_source = read_text(node["source"], at(node["source"], "reference.source"));
}

// Every layer name in the file with its line, before any is resolved: duplicates are errors, and
// a reference to a later layer can say so.
void Reader::collect_names(const YAML::Node& layers, const std::string& group) {
  for (const auto& item : layers) {
    if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) continue;  // reported when read
    if (item["repeat"]) {
      if (!group.empty()) continue;  // nested: reported when read
      if (!groups_.emplace(item["name"].Scalar(), line_of(item)).second)
        throw InputError(location(file_, line_of(item["name"]), "layer '" + item["name"].Scalar() + "': name"),
                         "duplicate repeat block name");
      if (item["layers"] && item["layers"].IsSequence()) collect_names(item["layers"], item["name"].Scalar());
      continue;
    }
    const std::string full = group.empty() ? item["name"].Scalar() : group + "." + item["name"].Scalar();
    const long line = line_of(item);
    const auto [it, fresh] = declared_.emplace(full, line);
    if (!fresh)
      throw InputError(location(file_, line_of(item["name"]), "layer '" + full + "': name"),
                       "duplicate name (already used at line " + std::to_string(it->second) + ")");
  }
}

int Reader::resolve(const std::string& name, const Scope& scope, const std::string& self, const std::string& where) const {
  if (name == "input") return scope.block_input;
  if (!scope.group.empty())
    if (auto it = index_.find(scope.group + "." + name); it != index_.end()) return it->second;
  if (auto it = index_.find(name); it != index_.end()) return it->second;
  if (name == self || (!scope.group.empty() && scope.group + "." + name == self))
    throw InputError(where, "a layer cannot read itself");
  for (const std::string& full : {scope.group.empty() ? name : scope.group + "." + name, name})
    if (auto it = declared_.find(full); it != declared_.end())
      throw InputError(where, "layer '" + full + "' is defined later (line " + std::to_string(it->second) +
                                  "); a layer may read only the network input and earlier layers");
  if (groups_.count(name))
    throw InputError(where, "'" + name + "' is a repeat block; name one of its layers, e.g. '" + name + ".<layer>'");
  std::vector<std::string> known;
  for (const auto& [n, _] : index_) {
    known.push_back(n);
    if (n.size() > name.size() && n.compare(n.size() - name.size(), name.size(), name) == 0 && n[n.size() - name.size() - 1] == '.')
      throw InputError(where, "no layer named '" + name + "' before this one; did you mean '" + n + "' (a layer of a repeat block)?");
  }
  throw InputError(where, "no layer named '" + name + "' before this one" + config::did_you_mean(name, known));
}

// A tied layer uses the weight matrix of an earlier linear or embedding: rows x columns must match
// ([out_features, in_features] for a linear, [vocab, dim] for an embedding).
void Reader::check_tied(Layer& l, const Scope& scope, const LayerSite& site) const {
  const std::string where = site.at(l.name, "tied_to");
  const int t = resolve(l.tied_to, scope, "", where);
  if (t < 0) throw InputError(where, "expected an earlier linear or embedding layer, not the input");
  const Layer& target = net_.layers[static_cast<std::size_t>(t)];
  const auto matrix = [](const Layer& x) {
    return x.kind == LayerKind::linear ? Shape{x.out_features, x.input.back()} : Shape{x.vocab, x.output.back()};
  };
  if (target.kind != LayerKind::linear && target.kind != LayerKind::embedding)
    throw InputError(where, "expected an earlier linear or embedding layer, '" + target.name + "' is a " + to_string(target.kind));
  if (matrix(target) != matrix(l))
    throw InputError(where, "the weight of '" + target.name + "' is " + to_string(matrix(target)) + ", this layer's is " +
                                to_string(matrix(l)) + " (rows x columns must match to share it)");
  l.tied_to = target.name;
}

void Reader::layer(const YAML::Node& node, const std::string& list_path, const Scope& scope) {
  if (node.IsMap() && node["repeat"]) {
    const std::string name = node["name"] && node["name"].IsScalar() ? node["name"].Scalar() : "";
    throw InputError(location(file_, line_of(node["repeat"]), name.empty() ? list_path : "layer '" + name + "': repeat"),
                     "nested repeats are not supported (a repeat block holds plain layers)");
  }
  LayerSpec spec = read_layer_fields(node, file_, list_path, names_);
  Layer& l = spec.layer;
  const std::string full = scope.group.empty() ? l.name : scope.group + "." + l.name;
  const std::string inputs_key = node["inputs"] ? "inputs" : "input";
  if (l.kind == LayerKind::parameter) {
    if (!spec.input_names.empty())
      throw InputError(spec.site.at(l.name, inputs_key), "a parameter layer reads no input: it is a learned tensor of `shape`");
  } else if (spec.input_names.empty()) {
    l.inputs.push_back(previous_);
  } else {
    for (const auto& name : spec.input_names) l.inputs.push_back(resolve(name, scope, full, spec.site.at(l.name, inputs_key)));
  }
  std::vector<Shape> shapes;
  for (int i : l.inputs) {
    shapes.push_back(shape_of(i));
    if (i >= 0 && net_.layers[static_cast<std::size_t>(i)].train_only && !l.train_only)
      throw InputError(spec.site.at(l.name, inputs_key), "reads train_only layer '" + net_.layers[static_cast<std::size_t>(i)].name +
                                                             "', so it must be train_only too");
  }
  infer_shape(l, shapes, net_.past, spec.requested, spec.site);
  if (!l.tied_to.empty()) check_tied(l, scope, spec.site);
  l.name = full;
  l.group = scope.group;
  l.count = scope.count;
  index_[full] = static_cast<int>(net_.layers.size());
  previous_ = index_[full];
  net_.layers.push_back(std::move(l));
}

void Reader::repeat_block(const YAML::Node& node, std::size_t index) {
  const std::string path = "layers[" + std::to_string(index) + "]";
  check_keys(node, kRepeatKeys, "a repeat block", [&](const std::string& key, long line) { return location(file_, line, path + "." + key); });
  if (!node["name"]) throw InputError(at(node, path + ".name"), "missing (a repeat block needs a name: its layers are NAME.<layer>)");
  Scope scope;
  scope.group = read_text(node["name"], at(node["name"], path + ".name"));
  const std::string where = location(file_, line_of(node["repeat"]), "layer '" + scope.group + "': repeat");
  scope.count = read_int(node["repeat"], names_, where);
  if (scope.count <= 0) throw InputError(where, "expected a positive number of copies, got " + std::to_string(scope.count));
  const YAML::Node layers = node["layers"];
  if (!layers || !layers.IsSequence() || layers.size() == 0)
    throw InputError(at(node, "layer '" + scope.group + "': layers"), "expected a non-empty list of layers");
  scope.block_input = previous_;
  const Shape in = shape_of(previous_);
  for (std::size_t i = 0; i < layers.size(); ++i) layer(layers[i], scope.group + ".layers[" + std::to_string(i) + "]", scope);
  if (shape_of(previous_) != in)
    throw InputError(where, "the block's output " + to_string(shape_of(previous_)) + " differs from its input " +
                                to_string(in) + "; a repeated block must keep its input's shape");
}

Network Reader::read(const std::string& text) {
  YAML::Node loaded;
  loaded = load_yaml_document(text, file_);
  const YAML::Node& root = loaded;  // const: a lookup of an absent key must not insert it
  if (!root.IsMap()) throw InputError(location(file_, 1), "expected a network: a YAML map with version, kind: network, name, task, layers");
  net_.file = file_;
  header(root);
  bind_variables(root);
  constants(root["constants"]);
  reference(root["reference"]);

  if (net_.task == "image") {
    const YAML::Node in = root["input"];
    if (!in) throw InputError(location(file_, 1, "input"), "missing (an image network's input [C, H, W])");
    if (!in.IsSequence() || in.size() != 3) throw InputError(at(in, "input"), "expected [C, H, W], e.g. [3, 224, 224]");
    for (const auto& d : in) {
      net_.input.push_back(read_int(d, names_, at(in, "input")));
      if (net_.input.back() <= 0) throw InputError(at(in, "input"), "expected positive dimensions, got " + std::to_string(net_.input.back()));
    }
  } else if (net_.task == "sequence") {
    const YAML::Node in = root["input"];
    if (!in) throw InputError(location(file_, 1, "input"), "missing (a sequence network's features per step: [features])");
    if (!in.IsSequence() || in.size() != 1) throw InputError(at(in, "input"), "expected [features], e.g. [161]: each step's input width");
    const std::int64_t features = read_int(in[0], names_, at(in, "input"));
    if (features <= 0) throw InputError(at(in, "input"), "expected a positive width, got " + std::to_string(features));
    net_.input = {net_.seq, features};
  } else {
    if (root["input"]) throw InputError(at(root["input"], "input"), "a token network's input is [seq] token ids; remove `input:`");
    net_.input = {net_.seq};
  }

  const YAML::Node layers = root["layers"];
  if (!layers || !layers.IsSequence() || layers.size() == 0)
    throw InputError(layers ? at(layers, "layers") : location(file_, 1, "layers"), "expected a non-empty list of layers");
  collect_names(layers, "");
  for (const auto& [group, line] : groups_)
    if (declared_.count(group))
      throw InputError(location(file_, line, "layer '" + group + "': name"),
                       "a repeat block and a layer (line " + std::to_string(declared_[group]) + ") share this name");
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].IsMap() && layers[i]["repeat"]) repeat_block(layers[i], i);
    else layer(layers[i], "layers[" + std::to_string(i) + "]", Scope{});
  }
  // A bidirectional attention layer refuses a cache itself (shape_inference.cpp); a network without
  // self-attention (an LSTM) has nothing to keep one for.
  if (net_.past > 0 && !net_.has_causal_self_attention())
    throw InputError(location(file_, 0, "past"), "a KV cache (past " + std::to_string(net_.past) +
                                                     " tokens: --kv-len, a sweep's kv_len or defaults.past) needs causal self-attention; '" +
                                                     net_.name + "' has no attention layer to keep one for");
  return std::move(net_);
}

}  // namespace

Network parse_network(const std::string& yaml_text, const std::string& file_name, const NetworkVariables& vars) {
  return Reader(file_name, vars).read(yaml_text);
}

Network read_network(const std::filesystem::path& file, const NetworkVariables& vars) {
  return parse_network(read_file(file), file.string(), vars);
}

}  // namespace tcsim::workload
