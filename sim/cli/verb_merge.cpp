// tcsim merge: combines the output folders of `tcsim sweep --shard I/N` runs (sim/engine/sweep/).
#include <iostream>

#include "cli/verbs.h"
#include "common/error.h"
#include "engine/sweep/sweep_runner.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

int merge_verb(const std::vector<std::string>& args) {
  std::string output;
  std::vector<std::string> positional;
  po::options_description opts("Options");
  opts.add_options()
      ("output,o", po::value(&output), "the merged folder (new or empty): the same files as a single-process sweep")
      ("dirs", po::value(&positional)->composing(), "the shards' output folders");
  po::positional_options_description pos;
  pos.add("dirs", -1);
  po::variables_map vm;
  if (!parse_options(args, "tcsim merge DIR... -o OUT", "  tcsim merge out/shard0 out/shard1 out/shard2 -o out/all",
                     opts, &pos, vm))
    return 0;
  if (output.empty()) throw InputError("--output", "expected -o OUT");
  const std::vector<std::filesystem::path> dirs(positional.begin(), positional.end());
  engine::sweep::merge_sweeps(dirs, output);
  std::cerr << "tcsim merge: " << dirs.size() << " shards merged into " << output << "\n";
  return 0;
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(merge, "merge", "combine the output folders of tcsim sweep --shard runs into one",
                    tcsim::cli::merge_verb)
