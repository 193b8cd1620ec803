// tcsim mma: bit-exact tensor-core arithmetic. The sub-commands live in sim/cli/mma/mma_<name>.cpp.
#include "cli/mma/mma_common.h"
#include "cli/verbs.h"

namespace tcsim::cli {
namespace {

int mma_verb(const std::vector<std::string>& args) {
  const std::vector<SubVerb> subs = {
      {"dot", "one dot product d = c + sum a*b, on one architecture or all side by side"},
      {"batch", "emulate a tc-golden directory (a_/b_/c_ files), write d files, --check against measured d"},
      {"gemm", "a random or file-given GEMM in one format/architecture: error against fp64, --compare formats"},
  };
  if (int rc = check_sub_verb("mma", args, subs); rc >= 0) return rc;
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "dot") return mma::run_dot(rest);
  if (args[0] == "batch") return mma::run_batch(rest);
  return mma::run_gemm(rest);
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(mma, "mma", "bit-exact tensor-core MMA arithmetic: dot, batch (tc-golden), gemm accuracy",
                    tcsim::cli::mma_verb)
