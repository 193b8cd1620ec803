// Profiles (sim/workload/profile/readers) and their op-to-kernel mapping. Byte 0 picks the reader:
//   0: PyTorch profiler (Kineto) trace JSON;  1: Nsight Compute CSV;
//   2: Nsight Systems SQLite export given as SQL text (executed into a fresh database, so the
//      fuzzer reaches odd tables, columns and values, not only SQLite's page checks);
//   3: the same export as raw database bytes.
// Seeds: TCSIM_FUZZ_WRITE_SEEDS=DIR fuzz_profile writes one per reader into DIR from the unit tests'
// fixtures and exits (scripts/fuzz does this).
#include <sqlite3.h>

#include "fuzz_support.h"
#include "workload/profile/profile_mapping.h"
#include "workload/profile/readers/kineto_trace.h"
#include "workload/profile/readers/ncu_csv.h"
#include "workload/profile/readers/nsys_sqlite.h"
#include "../workload/profile/ncu_test_csv.h"
#include "../workload/profile/nsys_test_db.h"
#include "../workload/profile/small_kineto_trace.h"

namespace {

// Runs `sql` into a new database file; false when SQLite rejects it (not a tcsim bug) or when it
// runs too long (a recursive CTE can insert forever: the progress handler stops it).
bool build_db(const std::filesystem::path& file, const std::string& sql) {
  std::error_code ec;
  std::filesystem::remove(file, ec);
  sqlite3* db = nullptr;
  if (sqlite3_open(file.string().c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  int steps = 0;
  sqlite3_progress_handler(db, 1000, [](void* n) { return ++*static_cast<int*>(n) > 2000 ? 1 : 0; }, &steps);
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
  const bool ok = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("TCSIM_FUZZ_WRITE_SEEDS")) {
    const std::filesystem::path d(dir);
    std::filesystem::create_directories(d);
    const auto put = [&](const char* name, char kind, const std::string& body) {
      std::ofstream(d / name, std::ios::binary) << kind << body;
    };
    put("seed_kineto.json", 0, tcsim::test::small_kineto_trace());
    put("seed_ncu_raw.csv", 1, tcsim::test::kRawCsv);
    put("seed_ncu_details.csv", 1, tcsim::test::kDetailsCsv);
    put("seed_nsys.sql", 2, tcsim::test::nsys_schema_sql() + tcsim::test::nsys_rows_sql());
    const auto db = tcsim::fuzz::scratch() / "seed.sqlite";
    build_db(db, tcsim::test::nsys_schema_sql() + tcsim::test::nsys_rows_sql());
    std::ifstream in(db, std::ios::binary);
    put("seed_nsys.sqlite", 3, std::string(std::istreambuf_iterator<char>(in), {}));
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcsim::workload;
  if (size == 0) return 0;
  const std::string body = tcsim::fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: return tcsim::fuzz::run([&] { (void)map_profile(parse_kineto_trace(body, "trace.json")); });
    case 1: return tcsim::fuzz::run([&] { (void)map_profile(parse_ncu_csv(body, "report.csv")); });
    case 2: {
      const auto db = tcsim::fuzz::scratch() / "export.sqlite";
      if (!build_db(db, body)) return 0;
      return tcsim::fuzz::run([&] { (void)map_profile(read_nsys_sqlite(db)); });
    }
    default: {
      const auto db = tcsim::fuzz::write_scratch("raw.sqlite", body);
      return tcsim::fuzz::run([&] { (void)map_profile(read_nsys_sqlite(db)); });
    }
  }
}
