#include <stdexcept>

#include "common/files/atomic_dir.h"
#include "common/files/atomic_file.h"
#include "io/cell_text.h"
#include "io/hdf5_writer.h"
#include "io/writers.h"

namespace tcsim::io {

void write_result_dir(const std::filesystem::path& dir, const ResultSet& r, bool all_tables_as_csv) {
  if (r.tables.empty()) throw std::invalid_argument("write_result_dir: a result set without tables");
  for (const auto& t : r.tables) check_table_name(t.name);
  write_file_atomically(dir / "summary.csv", format_csv(r.tables[0]));
  if (all_tables_as_csv)
    for (std::size_t i = 1; i < r.tables.size(); ++i)
      write_file_atomically(dir / (r.tables[i].name + ".csv"), format_csv(r.tables[i]));
  write_file_atomically(dir / "summary.json", format_json(r));
  write_hdf5(dir / "results.h5", r);
  for (const auto& [k, v] : r.attributes)
    if (k == "config_yaml" && !v.empty()) write_file_atomically(dir / "config.resolved.yaml", v);
}

void write_result_folder(const std::filesystem::path& dir, const ResultSet& r, bool all_tables_as_csv) {
  AtomicDir out(dir);
  write_result_dir(out.work(), r, all_tables_as_csv);
  out.commit();
}

}  // namespace tcsim::io
