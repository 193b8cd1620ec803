#pragma once
// One layer's YAML map -> a Layer with its kind and fields set (shapes come later, from
// shape_inference.h), the names of the layers it reads, and where each key was written.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "workload/network/network.h"
#include "workload/network/reader/shape_inference.h"
#include "workload/network/reader/yaml_fields.h"

namespace tcsim::workload {

struct LayerSpec {
  Layer layer;                           // name is the name as written (without a group prefix)
  std::vector<std::string> input_names;  // as written; empty: the previous layer
  Shape requested;                       // reshape: the shape; embedding: [dim]
  LayerSite site;
};

// `list_path` names the entry when it has no name yet ("layers[3]"). Throws InputError for unknown
// keys or kinds, missing required fields, and values out of range (zero sizes, negative padding).
LayerSpec read_layer_fields(const YAML::Node& node, const std::string& file, const std::string& list_path,
                            const Names& names);

// The keys a layer of `kind` may have (the common ones first).
std::vector<std::string> layer_keys(LayerKind kind);

}  // namespace tcsim::workload
