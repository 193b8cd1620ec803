#pragma once
// A small Nsight Systems SQLite export built with SQLite's C API in the tables and columns that
// `nsys export --type sqlite` writes (traces/README.md): PyTorch's emit_nvtx(record_shapes=True)
// op ranges, the launch calls and the kernels. Times are made up for the tests.
#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace tcsim::test {

inline void sqlite_exec(const std::filesystem::path& db_file, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(db_file.string().c_str(), &db) != SQLITE_OK) throw std::runtime_error("sqlite3_open");
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  if (rc != SQLITE_OK) throw std::runtime_error("sqlite3_exec: " + msg);
}

inline std::string nsys_schema_sql() {
  return R"SQL(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
)SQL";
}

inline std::string nsys_rows_sql() {
  return R"SQL(
INSERT INTO StringIds VALUES (1, 'ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn'),
  (2, 'ampere_fp16_s16816gemm'), (3, 'cudaLaunchKernel'),
  (4, 'aten::addmm, seq = 3, sizes = [[1024], [64, 512], [512, 1024], [], []]'),
  (5, 'void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<c10::Half>>(int)'),
  (6, 'my_custom_kernel');
INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA A100-SXM4-40GB');
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId) VALUES
  (1000, 9000, 59, 'aten::linear, seq = 3, sizes = [[64, 512], [1024, 512], [1024]]', 281474976710657, NULL),
  (1100, 4000, 59, NULL, 281474976710657, 4),
  (5000, 6000, 59, 'aten::add, seq = 4, sizes = [[64, 1024], [64, 1024], []]', 281474976710657, NULL),
  (100, 200, 34, 'a mark', 281474976710657, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500, 1600, 1, 281474976710657, 11, 3, 0, NULL),
  (5100, 5200, 1, 281474976710657, 12, 3, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (20000, 70000, 0, 1, 7, 11, 1, 1, 2, NULL, 0, 0, 128, 8, 1, 1, 256, 1, 1),
  (71000, 75000, 0, 1, 7, 12, 1, 5, 5, NULL, 0, 0, 32, 128, 1, 1, 128, 1, 1),
  (76000, 90000, 0, 1, 7, 99, 1, 6, 6, NULL, 0, 0, 32, 1, 1, 1, 32, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10000, 12000, 0, 7, 10, 4096, 1);
)SQL";
}

// Writes the export to `file` (replacing it).
inline void write_nsys_db(const std::filesystem::path& file) {
  std::filesystem::remove(file);
  sqlite_exec(file, nsys_schema_sql() + nsys_rows_sql());
}

}  // namespace tcsim::test
