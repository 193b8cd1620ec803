#include "engine/sweep/output/sweep_folder.h"

#include <sstream>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "io/hdf5_writer.h"
#include "io/writers.h"

namespace tcsim::engine::sweep {

namespace fs = std::filesystem;

std::string encode_manifest(const Manifest& m) {
  std::ostringstream o;
  o << "tcsim-sweep-manifest 1\nhash\t" << m.hash << "\nshard\t" << m.shard << "\t" << m.shards << "\ntasks\t" << m.tasks
    << "\nlayers\t" << (m.layer_detail ? 1 : 0) << "\n";
  for (const auto& c : m.points.columns) o << "column\t" << c.name << "\t" << c.description << "\n";
  for (const auto& [k, v] : m.attributes) o << "attribute\t" << k << "\t" << v << "\n";
  o << "end\n";
  return o.str();
}

bool read_manifest(const fs::path& dir, Manifest& m) {
  const fs::path file = dir / "sweep.manifest";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  std::istringstream in(read_file(file));
  std::string line;
  Manifest r;
  r.points.name = "points";
  r.layers = layer_columns();
  bool end = false;
  if (!std::getline(in, line) || line != "tcsim-sweep-manifest 1") throw InputError(file.string(), "not a tcsim sweep manifest");
  while (std::getline(in, line)) {
    if (line == "end") {
      end = true;
      break;
    }
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      const std::size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    try {
      if (f[0] == "hash" && f.size() == 2) r.hash = f[1];
      else if (f[0] == "shard" && f.size() == 3) r.shard = std::stoi(f[1]), r.shards = std::stoi(f[2]);
      else if (f[0] == "tasks" && f.size() == 2) r.tasks = std::stoull(f[1]);
      else if (f[0] == "layers" && f.size() == 2) r.layer_detail = f[1] == "1";
      else if (f[0] == "column" && f.size() == 3) r.points.add_column(f[1], f[2]);
      else if (f[0] == "attribute" && f.size() == 3) r.attributes.emplace_back(f[1], f[2]);
      else throw InputError(file.string(), "damaged manifest line '" + line + "'");
    } catch (const std::logic_error&) {
      throw InputError(file.string(), "damaged manifest line '" + line + "'");
    }
  }
  if (!end || r.shards < 1 || r.shard < 0 || r.shard >= r.shards) throw InputError(file.string(), "damaged manifest (remove the folder)");
  m = std::move(r);
  return true;
}

fs::path record_path(const fs::path& dir, std::size_t task) { return dir / "points" / (std::to_string(task) + ".rec"); }

std::map<std::size_t, Record> read_records(const fs::path& dir, const Manifest& m) {
  std::map<std::size_t, Record> out;
  std::error_code ec;
  if (!fs::is_directory(dir / "points", ec)) return out;
  for (const auto& e : fs::directory_iterator(dir / "points")) {
    const std::string name = e.path().filename().string();
    // Anything else (an interrupted write's temporary file) is not finished work.
    // (At most 18 digits: a longer name is no task of this sweep, and would overflow stoull.)
    if (e.path().extension() != ".rec" || name.find_first_not_of("0123456789") != name.size() - 4 || name.size() > 22)
      continue;
    const std::size_t task = std::stoull(name.substr(0, name.size() - 4));
    if (task >= m.tasks || !m.owns(task)) continue;
    Record r;
    if (decode_record(read_file(e.path()), m.hash, m.points.columns.size(), r)) out.emplace(task, std::move(r));
  }
  return out;
}

void assemble(const fs::path& dir, const Manifest& m, const std::map<std::size_t, Record>& records) {
  io::ResultSet rs;
  rs.attributes = m.attributes;
  rs.attributes.emplace_back("spec_yaml", read_file(dir / "spec.resolved.yaml"));
  io::Table points = m.points, layers = m.layers;
  for (const auto& [task, r] : records) {
    if (!m.owns(task)) continue;
    points.add_row(r.row);
    for (const auto& l : r.layers) layers.add_row(l);
  }
  rs.tables.push_back(points);
  if (m.layer_detail) rs.tables.push_back(layers);
  write_file_atomically(dir / "summary.csv", io::format_csv(points));
  io::write_hdf5(dir / "results.h5", rs);
}

}  // namespace tcsim::engine::sweep
