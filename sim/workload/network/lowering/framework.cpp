#include "workload/network/lowering/framework.h"

#include "common/text/strings.h"

namespace tcsim::workload {

const char* to_string(Framework f) {
  switch (f) {
    case Framework::pytorch: return "pytorch";
    case Framework::mxnet: return "mxnet";
    case Framework::tensorflow: return "tensorflow";
  }
  return "?";
}

bool parse_framework(const std::string& text, Framework& f) {
  const std::string t = to_lower(text);
  for (Framework c : {Framework::pytorch, Framework::mxnet, Framework::tensorflow})
    if (t == to_string(c)) {
      f = c;
      return true;
    }
  return false;
}

bool cudnn_batch_norm(Framework f, TensorLayout layout) {
  return f == Framework::pytorch || (f == Framework::mxnet && layout == TensorLayout::nchw);
}

}  // namespace tcsim::workload
