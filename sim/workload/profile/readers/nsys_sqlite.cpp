#include "workload/profile/readers/nsys_sqlite.h"

#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <unordered_map>

#include "common/error.h"
#include "common/text/strings.h"
#include "workload/profile/readers/profile_links.h"

namespace tcsim::workload {
namespace {

constexpr int kNvtxPushPopRange = 59;  // NVTX_EVENTS.eventType of a push/pop range

class Database {
 public:
  explicit Database(const std::string& file) : file_(file) {
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "cannot open";
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(file, "not a readable SQLite database: " + why);
    }
  }
  ~Database() { sqlite3_close(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  std::set<std::string> columns(const std::string& table) {
    std::set<std::string> out;
    each("PRAGMA table_info(\"" + table + "\")", table, [&](sqlite3_stmt* s, long) {
      if (const unsigned char* t = sqlite3_column_text(s, 1)) out.insert(reinterpret_cast<const char*>(t));
    });
    return out;
  }
  bool has_table(const std::string& table) {
    bool found = false;
    each("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name = '" + table + "'", "sqlite_master",
         [&](sqlite3_stmt*, long) { found = true; });
    return found;
  }
  // Runs a query; calls row(stmt, row number from 1) for each row.
  template <class F>
  void each(const std::string& sql, const std::string& table, F row) {
    sqlite3_stmt* raw = nullptr;
    const int prepared = sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr);
    // Finalized however this ends: row() throws InputError on a bad row, and an unfinalized
    // statement keeps sqlite3_close from freeing the connection (found by fuzz_profile: a leak).
    const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> st(raw, sqlite3_finalize);
    if (prepared != SQLITE_OK) throw InputError(file_ + ": " + table, std::string("cannot be read: ") + sqlite3_errmsg(db_));
    long n = 0;
    int rc;
    while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) row(st.get(), ++n);
    if (rc != SQLITE_DONE) throw InputError(file_ + ": " + table, std::string("cannot be read: ") + sqlite3_errmsg(db_));
  }

 private:
  std::string file_;
  sqlite3* db_ = nullptr;
};

std::string text_of(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

// "aten::addmm, seq = 12, sizes = [[1024], [64, 512], []]" -> name and sizes.
void parse_nvtx_op(const std::string& text, ProfiledOp& op) {
  const std::size_t comma = text.find(',');
  op.name = std::string(trim(text.substr(0, comma)));
  const std::size_t at = text.find("sizes = [");
  if (at == std::string::npos) return;
  std::size_t i = at + 9;  // inside the outer list
  while (i < text.size() && text[i] != ']') {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] != '[') break;
    const std::size_t close = text.find(']', i);
    if (close == std::string::npos) break;
    Dims d;
    for (const auto& part : split(text.substr(i + 1, close - i - 1), ',')) {
      const std::string p(trim(part));
      if (p.empty()) continue;
      char* end = nullptr;
      const long long v = std::strtoll(p.c_str(), &end, 10);
      if (end == p.c_str() || *end) return;  // not a size list: keep the name only
      d.push_back(v);
    }
    op.input_dims.push_back(std::move(d));
    i = close + 1;
  }
  op.input_lists.assign(op.input_dims.size(), {});
}

}  // namespace

bool is_sqlite_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[16] = {};
  in.read(head, 16);
  return in.gcount() == 16 && std::string(head, 15) == "SQLite format 3";
}

Profile read_nsys_sqlite(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(file, "file not found");
  Database db(file);
  const std::string kt = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!db.has_table(kt))
    throw InputError(file + ": " + kt,
                     "missing: no GPU kernels in this export (profile with `nsys profile --trace=cuda`, then "
                     "`nsys export --type sqlite`)");
  if (!db.has_table("StringIds")) throw InputError(file + ": StringIds", "missing: the kernel names cannot be read");
  const std::set<std::string> cols = db.columns(kt);
  for (const char* c : {"start", "end", "correlationId"})
    if (!cols.count(c)) throw InputError(file + ": " + kt + ": " + c, "missing column");
  const char* name_col = cols.count("demangledName") ? "demangledName" : cols.count("shortName") ? "shortName" : nullptr;
  if (!name_col) throw InputError(file + ": " + kt + ": demangledName", "missing column (nor shortName)");
  auto col_or = [&](const char* c, const char* fallback) { return std::string(cols.count(c) ? c : fallback); };

  Profile p;
  p.source = file;
  p.format = "nsys-sqlite";
  if (db.has_table("TARGET_INFO_GPU") && db.columns("TARGET_INFO_GPU").count("name"))
    db.each("SELECT name FROM TARGET_INFO_GPU LIMIT 1", "TARGET_INFO_GPU",
            [&](sqlite3_stmt* s, long) { p.meta.emplace_back("gpu", text_of(s, 0)); });

  // Kernels.
  std::vector<std::int64_t> correlation;
  const std::string sql = "SELECT k.start, k.end, " + col_or("deviceId", "0") + ", " + col_or("streamId", "0") +
                          ", k.correlationId, s.value, " + col_or("gridX", "0") + ", " + col_or("gridY", "0") + ", " +
                          col_or("gridZ", "0") + ", " + col_or("blockX", "0") + ", " + col_or("blockY", "0") + ", " +
                          col_or("blockZ", "0") + " FROM " + kt + " AS k LEFT JOIN StringIds AS s ON s.id = k." + name_col +
                          " ORDER BY k.start";
  db.each(sql, kt, [&](sqlite3_stmt* s, long row) {
    const std::string where = file + ": " + kt + ":row " + std::to_string(row);
    if (sqlite3_column_type(s, 0) == SQLITE_NULL || sqlite3_column_type(s, 1) == SQLITE_NULL)
      throw InputError(where, "start or end is empty");
    ProfiledKernel k;
    const double start = double(sqlite3_column_int64(s, 0)), end = double(sqlite3_column_int64(s, 1));
    if (end < start) throw InputError(where, "end before start");
    k.start_us = start * 1e-3;
    k.dur_us = (end - start) * 1e-3;
    k.device = sqlite3_column_int64(s, 2);
    k.stream = sqlite3_column_int64(s, 3);
    k.name = text_of(s, 5);
    if (k.name.empty()) throw InputError(where, std::string("its ") + name_col + " is not in StringIds");
    for (int i = 0; i < 3; ++i) k.grid[std::size_t(i)] = sqlite3_column_int64(s, 6 + i), k.block[std::size_t(i)] = sqlite3_column_int64(s, 9 + i);
    k.origin = where;
    correlation.push_back(sqlite3_column_int64(s, 4));
    p.kernels.push_back(std::move(k));
  });
  for (const char* t : {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    if (!db.has_table(t)) continue;
    const std::string label = std::string(t).find("MEMCPY") != std::string::npos ? "Memcpy" : "Memset";
    db.each(std::string("SELECT start, end FROM ") + t, t, [&](sqlite3_stmt* s, long row) {
      ProfiledKernel k;
      k.name = label;
      k.start_us = double(sqlite3_column_int64(s, 0)) * 1e-3;
      k.dur_us = std::max(0.0, double(sqlite3_column_int64(s, 1)) * 1e-3 - k.start_us);
      k.origin = file + ": " + t + ":row " + std::to_string(row);
      correlation.push_back(-1);
      p.kernels.push_back(std::move(k));
    });
  }

  // NVTX ranges as ops, linked to kernels through the runtime's launch calls.
  if (db.has_table("NVTX_EVENTS") && db.has_table("CUPTI_ACTIVITY_KIND_RUNTIME")) {
    const std::set<std::string> nc = db.columns("NVTX_EVENTS");
    const std::string text = nc.count("textId") ? "COALESCE(n.text, s.value)" : "n.text";
    const std::string join = nc.count("textId") ? " LEFT JOIN StringIds AS s ON s.id = n.textId" : "";
    db.each("SELECT n.start, n.end, n.globalTid, " + text + " FROM NVTX_EVENTS AS n" + join +
                " WHERE n.eventType = " + std::to_string(kNvtxPushPopRange) + " AND n.end IS NOT NULL",
            "NVTX_EVENTS", [&](sqlite3_stmt* s, long row) {
              ProfiledOp op;
              op.start_us = double(sqlite3_column_int64(s, 0)) * 1e-3;
              op.dur_us = double(sqlite3_column_int64(s, 1)) * 1e-3 - op.start_us;
              op.tid = sqlite3_column_int64(s, 2);
              parse_nvtx_op(text_of(s, 3), op);
              op.origin = file + ": NVTX_EVENTS:row " + std::to_string(row);
              p.ops.push_back(std::move(op));
            });
    link_op_parents(p.ops);
    std::unordered_map<std::int64_t, std::pair<std::int64_t, double>> launch;  // correlation -> (thread, time)
    db.each("SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_RUNTIME",
            [&](sqlite3_stmt* s, long) {
              launch.emplace(sqlite3_column_int64(s, 0),
                             std::make_pair(sqlite3_column_int64(s, 1), double(sqlite3_column_int64(s, 2)) * 1e-3));
            });
    const OpLocator locate(p.ops);
    for (std::size_t i = 0; i < p.kernels.size(); ++i) {
      auto l = correlation[i] >= 0 ? launch.find(correlation[i]) : launch.end();
      if (l != launch.end()) p.kernels[i].op = locate.innermost(l->second.first, l->second.second);
    }
    // dtypes from the kernels' names, for every sized argument of the op that launched them.
    for (const ProfiledKernel& k : p.kernels) {
      if (k.op < 0) continue;
      ProfiledOp& op = p.ops[std::size_t(k.op)];
      if (!op.input_types.empty()) continue;
      const std::string t = dtype_from_kernel_name(k.name);
      if (t.empty()) continue;
      for (const Dims& d : op.input_dims) op.input_types.push_back(d.empty() ? "" : t);
    }
  }
  std::stable_sort(p.kernels.begin(), p.kernels.end(),
                   [](const ProfiledKernel& a, const ProfiledKernel& b) { return a.start_us < b.start_us; });
  return p;
}

}  // namespace tcsim::workload
