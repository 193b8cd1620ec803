// tcsim measured to-h5: converts measured timings (gemm.csv + meta.yaml, validation/measured/) to
// the HDF5 form that `tcsim validate FILE.h5` reads.
#include <iostream>

#include "cli/verbs.h"
#include "common/error.h"
#include "engine/validation/measured_h5_convert.h"
#include "workload/measured/measured_h5.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

int to_h5_verb(const std::vector<std::string>& args) {
  std::string in, out;
  po::options_description opts("Options");
  opts.add_options()("input", po::value(&in), "measured CSV (tcsim's schema; meta.yaml beside it is read too)")(
      "output", po::value(&out), "the .h5 file to write (atomically)");
  po::positional_options_description pos;
  pos.add("input", 1).add("output", 1);
  po::variables_map vm;
  if (!parse_options(args, "tcsim measured to-h5 GEMM.csv OUT.h5",
                     "  tcsim measured to-h5 validation/measured/H100/gemm.csv out/h100_gemm.h5\n"
                     "  tcsim validate -c configs/gpu/h100.yaml out/h100_gemm.h5",
                     opts, &pos, vm))
    return 0;
  if (in.empty() || out.empty()) throw InputError("tcsim measured to-h5", "expected GEMM.csv and OUT.h5");
  if (!workload::is_measured_h5_name(out)) throw InputError(out, "the output must end in .h5 or .hdf5");
  const std::size_t rows = engine::convert_measured_csv_to_h5(in, out);
  std::cerr << "tcsim measured to-h5: " << rows << " rows -> " << out << "\n";
  return 0;
}

int measured_verb(const std::vector<std::string>& args) {
  const int rc = check_sub_verb(
      "measured", args, {{"to-h5", "convert measured timings (gemm.csv + meta.yaml) to the HDF5 form validate reads"}});
  if (rc >= 0) return rc;
  return to_h5_verb(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace
}  // namespace tcsim::cli

TCSIM_REGISTER_VERB(measured, "measured", "convert measured timing files (CSV -> HDF5)", tcsim::cli::measured_verb)
