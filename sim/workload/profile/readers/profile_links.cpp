#include "workload/profile/readers/profile_links.h"

#include <algorithm>

#include "common/text/strings.h"

namespace tcsim::workload {

void link_op_parents(std::vector<ProfiledOp>& ops) {
  std::vector<int> order(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) order[i] = int(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const ProfiledOp &x = ops[std::size_t(a)], &y = ops[std::size_t(b)];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.start_us != y.start_us) return x.start_us < y.start_us;
    return x.dur_us > y.dur_us;  // the longer one encloses
  });
  std::vector<int> stack;
  std::int64_t tid = 0;
  for (int i : order) {
    ProfiledOp& op = ops[std::size_t(i)];
    if (stack.empty() || op.tid != tid) stack.clear(), tid = op.tid;
    while (!stack.empty()) {
      const ProfiledOp& top = ops[std::size_t(stack.back())];
      if (op.start_us + op.dur_us <= top.start_us + top.dur_us + 1e-3) break;
      stack.pop_back();
    }
    op.parent = stack.empty() ? -1 : stack.back();
    stack.push_back(i);
  }
}

OpLocator::OpLocator(const std::vector<ProfiledOp>& ops) : ops_(ops), order_(ops.size()) {
  for (std::size_t i = 0; i < ops.size(); ++i) order_[i] = int(i);
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    const ProfiledOp &x = ops[std::size_t(a)], &y = ops[std::size_t(b)];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.start_us != y.start_us) return x.start_us < y.start_us;
    return x.dur_us > y.dur_us;
  });
}

int OpLocator::innermost(std::int64_t tid, double t) const {
  // The last op on the thread that starts at or before t, then out through its parents.
  auto it = std::upper_bound(order_.begin(), order_.end(), std::make_pair(tid, t),
                             [&](const std::pair<std::int64_t, double>& v, int i) {
                               const ProfiledOp& o = ops_[std::size_t(i)];
                               return v.first != o.tid ? v.first < o.tid : v.second < o.start_us;
                             });
  if (it == order_.begin()) return -1;
  int i = *std::prev(it);
  if (ops_[std::size_t(i)].tid != tid) return -1;
  while (i >= 0 && ops_[std::size_t(i)].start_us + ops_[std::size_t(i)].dur_us < t) i = ops_[std::size_t(i)].parent;
  return i;
}

std::string dtype_from_kernel_name(const std::string& raw) {
  const std::string s = to_lower(raw);
  auto has = [&](const char* p) { return s.find(p) != std::string::npos; };
  if (has("bfloat16") || has("bf16")) return "c10::BFloat16";
  if (has("c10::half") || has("__half") || has("f16") || has("fp16") || has("h884") || has("h1688") || has("h16816") ||
      has("half"))
    return "c10::Half";
  if (has("tf32") || has("<float") || has("float>") || has("float,") || has("sgemm") || has("scudnn") || has("f32"))
    return "float";
  return "";
}

}  // namespace tcsim::workload
