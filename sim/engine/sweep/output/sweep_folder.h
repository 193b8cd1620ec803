#pragma once
// The output folder of a sweep (or of one shard):
//   sweep.manifest       what sweep and shard the folder holds (written first)
//   spec.resolved.yaml   the spec with every axis value, point count and workload resolved
//   points/<task>.rec    one finished (point, workload) each, written atomically as it completes
//   summary.csv, results.h5   assembled in task order once every task of the shard is done
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/sweep/output/sweep_table.h"
#include "io/table.h"

namespace tcsim::engine::sweep {

struct Manifest {
  std::string hash;
  int shard = 0, shards = 1;
  std::size_t tasks = 0;                 // of the whole sweep
  io::Table points, layers;              // columns only
  bool layer_detail = false;
  std::vector<std::pair<std::string, std::string>> attributes;  // one-line values
  bool owns(std::size_t task) const { return task % std::size_t(shards) == std::size_t(shard); }
};

std::string encode_manifest(const Manifest& m);
// false when dir has no manifest; InputError when it has a damaged one.
bool read_manifest(const std::filesystem::path& dir, Manifest& m);

// The decodable records of dir/points (task -> record); damaged ones are left out (they rerun).
std::map<std::size_t, Record> read_records(const std::filesystem::path& dir, const Manifest& m);
std::filesystem::path record_path(const std::filesystem::path& dir, std::size_t task);

// Writes summary.csv and results.h5 from the records (every task the manifest's shard owns).
void assemble(const std::filesystem::path& dir, const Manifest& m, const std::map<std::size_t, Record>& records);

}  // namespace tcsim::engine::sweep
