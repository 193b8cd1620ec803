#pragma once
// Output shapes of layers from the shapes of their inputs, with every check the format promises
// (models/README.md): input ranks, kernels that fit their padded input, groups that divide the
// channels, same-shape operands, element counts of reshapes and matmul operands.
#include <map>
#include <string>
#include <vector>

#include "workload/network/network.h"

namespace tcsim::workload {

// Where a layer was written, to name it in errors: "file:line: layer 'NAME': field".
struct LayerSite {
  std::string file;
  long line = 0;                             // the layer's first line
  std::map<std::string, long> field_lines;   // the line of each key it writes
  std::string at(const std::string& layer_name, const std::string& field) const;
};

// Sets layer.output (and layer.input, q_len and kv_len) from `inputs`, the shapes of the layers in
// layer.inputs in order; `past` is the KV-cache length of attention layers; `requested` is what the
// file asks for where the output is not derived (reshape: its shape; embedding: [dim]).
// Throws InputError.
void infer_shape(Layer& layer, const std::vector<Shape>& inputs, std::int64_t past, const Shape& requested,
                 const LayerSite& site);

}  // namespace tcsim::workload
