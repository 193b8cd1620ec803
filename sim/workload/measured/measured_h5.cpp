// The HDF5 form of the measured schema through the HDF5 C API (see measured_h5.h).
#include "workload/measured/measured_h5.h"

#include <hdf5.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.h"
#include "common/files/atomic_file.h"
#include "common/hdf5/hdf5_global_heap.h"
#include "common/hdf5/hdf5_handle.h"
#include "common/isolated.h"
#include "common/text/strings.h"
#include "workload/csv/csv_text.h"

namespace tcsim::workload {
namespace {

using Handle = Hdf5Handle;

// Upper bounds checked before any read (validation/measured/README.md, "HDF5 form"): a damaged
// dataspace or type cannot make tcsim allocate or convert absurd amounts.
constexpr hsize_t kMaxRows = 10'000'000;          // measured tables hold thousands of rows
constexpr std::size_t kMaxColumns = 1000;
constexpr std::size_t kMaxAttributeElements = 10'000;
constexpr std::size_t kMaxFixedStringBytes = 1 << 20;  // one fixed-length string element
constexpr unsigned kReadTimeoutSeconds = 20;  // a corrupted heap can make libhdf5 loop forever

// Numbers are converted to double by libhdf5; only the ordinary integer and IEEE float widths are.
bool plain_number_type(hid_t type) {
  const H5T_class_t cls = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  if (cls == H5T_INTEGER) return size == 1 || size == 2 || size == 4 || size == 8;
  if (cls == H5T_FLOAT) return size == 4 || size == 8;
  return false;
}

// Shortest text that reads back to the same double; "nan" for NaN (= empty/not measured).
// Whole numbers are written in fixed notation ("500000", not "5e+05") so that dimension columns
// stored as float64 read back as the integers they are.
std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  const bool whole = std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0;  // 2^53
  const auto r = whole ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                       : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  hid_t check(hid_t id, const std::string& where, const std::string& what) const {
    if (id < 0) throw InputError(where, what);
    return id;
  }

  // A string attribute (scalar) or string-array attribute; numbers as text. `ok` false when the
  // attribute has another type.
  std::vector<std::string> attribute_text(hid_t attr, const std::string& where, bool& ok) const {
    ok = true;
    Handle type(check(H5Aget_type(attr), where, "cannot read the attribute's type"), H5Tclose);
    Handle space(check(H5Aget_space(attr), where, "cannot read the attribute's dataspace"), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    if (n < 0) throw InputError(where, "cannot read the attribute's size");
    if (H5Sget_simple_extent_ndims(space.get()) > 1) throw InputError(where, "expected a scalar or a 1-D attribute");
    if (static_cast<std::size_t>(n) > kMaxAttributeElements)
      throw InputError(where, std::to_string(n) + " elements; at most " + std::to_string(kMaxAttributeElements) + " are read");
    const auto count = static_cast<std::size_t>(n);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
      if (!plain_number_type(type.get())) throw InputError(where, "unsupported number type (width " + std::to_string(H5Tget_size(type.get())) + " bytes)");
      std::vector<double> v(count);
      if (count && H5Aread(attr, H5T_NATIVE_DOUBLE, v.data()) < 0) throw InputError(where, "cannot read the attribute");
      std::vector<std::string> out;
      for (double d : v) out.push_back(number_text(d));
      return out;
    }
    if (cls != H5T_STRING) {
      ok = false;
      return {};
    }
    if (H5Tis_variable_str(type.get()) > 0) {
      Handle mem(check(H5Tcopy(H5T_C_S1), where, "cannot create a string type"), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
      std::vector<char*> p(count, nullptr);
      if (count && H5Aread(attr, mem.get(), p.data()) < 0) throw InputError(where, "cannot read the attribute");
      std::vector<std::string> out;
      for (char* s : p) out.emplace_back(s ? s : "");
      if (count) H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, p.data());
      return out;
    }
    const std::size_t size = H5Tget_size(type.get());
    if (size == 0 || size > kMaxFixedStringBytes)
      throw InputError(where, "fixed-length strings of " + std::to_string(size) + " bytes; at most " + std::to_string(kMaxFixedStringBytes));
    std::vector<char> buf(count * size + 1, '\0');
    if (count && H5Aread(attr, type.get(), buf.data()) < 0) throw InputError(where, "cannot read the attribute");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < count; ++i) out.emplace_back(buf.data() + i * size, strnlen(buf.data() + i * size, size));
    return out;
  }

  // One column: its elements as text (numbers in shortest round-trip form, NaN as "nan").
  std::vector<std::string> column(hid_t group, const std::string& path, const std::string& name) const {
    const std::string where = file_ + ":" + path + "/" + name;
    if (H5Lexists(group, name.c_str(), H5P_DEFAULT) <= 0) throw InputError(where, "missing dataset (column '" + name + "' of the 'columns' attribute)");
    Handle ds(check(H5Dopen2(group, name.c_str(), H5P_DEFAULT), where, "not a dataset (expected a 1-D column)"), H5Dclose);
    Handle space(check(H5Dget_space(ds.get()), where, "cannot read the dataspace"), H5Sclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 1) throw InputError(where, "expected a 1-D dataset (one element per row)");
    hsize_t n = 0;
    if (H5Sget_simple_extent_dims(space.get(), &n, nullptr) < 0) throw InputError(where, "cannot read the dataspace");
    if (n > kMaxRows) throw InputError(where, std::to_string(n) + " rows; at most " + std::to_string(kMaxRows) + " are read");
    Handle type(check(H5Dget_type(ds.get()), where, "cannot read the type"), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    std::vector<std::string> out;
    out.reserve(n);
    if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
      if (!plain_number_type(type.get())) throw InputError(where, "unsupported number type (width " + std::to_string(H5Tget_size(type.get())) + " bytes)");
      std::vector<double> v(n);
      if (n && H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw InputError(where, "cannot read the numbers");
      for (double d : v) out.push_back(number_text(d));
    } else if (cls == H5T_STRING && H5Tis_variable_str(type.get()) > 0) {
      Handle mem(check(H5Tcopy(H5T_C_S1), where, "cannot create a string type"), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
      std::vector<char*> p(n, nullptr);
      if (n && H5Dread(ds.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) < 0)
        throw InputError(where, "cannot read the strings");
      for (char* s : p) out.emplace_back(s ? s : "");
      if (n) H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, p.data());
    } else if (cls == H5T_STRING) {
      const std::size_t size = H5Tget_size(type.get());
      if (size == 0 || size > kMaxFixedStringBytes || n * size > (std::size_t{1} << 31))
        throw InputError(where, "fixed-length strings of " + std::to_string(size) + " bytes x " + std::to_string(n) + " rows; too large");
      std::vector<char> buf(n * size + 1, '\0');
      if (n && H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
        throw InputError(where, "cannot read the strings");
      for (hsize_t i = 0; i < n; ++i) out.emplace_back(buf.data() + i * size, strnlen(buf.data() + i * size, size));
    } else {
      throw InputError(where, "wrong type: expected numbers (float/integer) or strings");
    }
    for (auto& s : out) s = std::string(trim(s));
    return out;
  }

  // Column names: the `columns` attribute, else the group's links in name order.
  std::vector<std::string> column_names(hid_t group, const std::string& path) const {
    const std::string where = file_ + ":" + path;
    if (H5Aexists(group, "columns") > 0) {
      Handle attr(check(H5Aopen(group, "columns", H5P_DEFAULT), where, "cannot open attribute 'columns'"), H5Aclose);
      bool ok = false;
      auto names = attribute_text(attr.get(), where + " columns", ok);
      if (!ok) throw InputError(where, "attribute 'columns' must be strings (the column names in order)");
      return names;
    }
    H5G_info_t info{};
    if (H5Gget_info(group, &info) < 0) throw InputError(where, "cannot list the group");
    if (info.nlinks > kMaxColumns)
      throw InputError(where, std::to_string(info.nlinks) + " datasets; at most " + std::to_string(kMaxColumns) + " columns are read");
    std::vector<std::string> names;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      const ssize_t len = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
      if (len < 0) throw InputError(where, "cannot list the group");
      std::string s(static_cast<std::size_t>(len) + 1, '\0');
      H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, s.data(), s.size(), H5P_DEFAULT);
      s.resize(static_cast<std::size_t>(len));
      names.push_back(s);
    }
    return names;
  }

  // Root attributes (meta.yaml's keys), in name order; attributes of other types are skipped.
  void root_meta(hid_t f, MeasuredSet& out) const {
    std::vector<std::string> names;
    auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
      static_cast<std::vector<std::string>*>(data)->emplace_back(name);
      return 0;
    };
    hsize_t idx = 0;
    if (H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names) < 0)
      throw InputError(file_, "cannot list the root attributes");
    for (const auto& name : names) {
      const std::string where = file_ + ": attribute " + name;
      Handle attr(check(H5Aopen(f, name.c_str(), H5P_DEFAULT), where, "cannot open the attribute"), H5Aclose);
      bool ok = false;
      const auto values = attribute_text(attr.get(), where, ok);
      if (ok) out.meta.emplace_back(name, join(values, " "));
    }
  }

 private:
  std::string file_;
};

}  // namespace

bool is_measured_h5_name(const std::filesystem::path& file) {
  const std::string ext = to_lower(file.extension().string());
  return ext == ".h5" || ext == ".hdf5";
}

namespace {

// What the HDF5 side produces: the column names, the columns as text, the root attributes.
struct RawTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> cols;
  std::vector<std::pair<std::string, std::string>> meta;
};

std::string encode(const RawTable& t) {
  std::vector<std::string> parts{pack_strings(t.header)};
  for (const auto& c : t.cols) parts.push_back(pack_strings(c));
  std::vector<std::string> meta;
  for (const auto& [k, v] : t.meta) {
    meta.push_back(k);
    meta.push_back(v);
  }
  parts.push_back(pack_strings(meta));
  return pack_strings(parts);
}

RawTable decode(const std::string& bytes) {
  const auto parts = unpack_strings(bytes);
  if (parts.size() < 2) throw std::runtime_error("measured_h5: malformed answer of the reading process");
  RawTable t;
  t.header = unpack_strings(parts.front());
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) t.cols.push_back(unpack_strings(parts[i]));
  const auto meta = unpack_strings(parts.back());
  for (std::size_t i = 0; i + 1 < meta.size(); i += 2) t.meta.emplace_back(meta[i], meta[i + 1]);
  return t;
}

// Everything that calls libhdf5; runs in a child process (see read_measured_h5).
RawTable read_raw(const std::filesystem::path& path) {
  const std::string file = path.string();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not printed stacks
  if (H5Fis_hdf5(file.c_str()) <= 0) throw InputError(file, "not an HDF5 file");
  const Reader rd(file);
  Handle f(rd.check(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), file, "HDF5 could not open the file"), H5Fclose);
  const std::string path_in = std::string("/") + kMeasuredH5Group;
  if (H5Lexists(f.get(), kMeasuredH5Group, H5P_DEFAULT) <= 0)
    throw InputError(file, "missing group '" + path_in + "' (the measured table, validation/measured/README.md)");
  Handle g(rd.check(H5Gopen2(f.get(), kMeasuredH5Group, H5P_DEFAULT), file + ":" + path_in, "not a group"), H5Gclose);
  RawTable t;
  t.header = rd.column_names(g.get(), path_in);
  if (t.header.size() > kMaxColumns)
    throw InputError(file + ":" + path_in, std::to_string(t.header.size()) + " columns; at most " +
                                               std::to_string(kMaxColumns) + " are read");
  for (const auto& name : t.header) t.cols.push_back(rd.column(g.get(), path_in, name));
  MeasuredSet meta;
  rd.root_meta(f.get(), meta);
  t.meta = std::move(meta.meta);
  return t;
}

}  // namespace

MeasuredSet read_measured_h5(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(file, "cannot read the file (not found)");
  // libhdf5 runs in a child process: a corrupted file that crashes or hangs it (a damaged global
  // heap behind variable-length strings) becomes an InputError here instead of a crash.
  // Memory: 1 GiB plus 64 bytes per byte of the file (its strings and numbers as text, with room).
  const std::size_t memory = (std::size_t{1} << 30) + 64 * static_cast<std::size_t>(std::filesystem::file_size(path, ec));
  // The global heap's object sizes are checked first, in tcsim's code: a damaged size is reported
  // precisely and never reaches libhdf5, which would copy that many bytes (the child's crash stays
  // the answer to the damage this check cannot see, such as a string's reference into the heap).
  if (const auto damage = global_heap_damage(read_file(path)); !damage.empty())
    throw InputError(file, "the file is corrupted: " + damage);
  const RawTable raw = decode(run_isolated([&] { return encode(read_raw(path)); }, file, kReadTimeoutSeconds, memory));
  const std::string path_in = std::string("/") + kMeasuredH5Group;

  // The table as CSV text, so that rows follow exactly the CSV schema's rules.
  CsvText csv;
  csv.file = file + ":" + path_in;  // row errors read "x.h5:/measured:<row>: <column>"
  csv.header_line = 0;
  csv.header = raw.header;
  const auto& cols = raw.cols;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (cols[i].size() != cols.front().size())
      throw InputError(file + ":" + path_in + "/" + csv.header[i],
                       "ragged columns: " + std::to_string(cols[i].size()) + " elements, but '" +
                           csv.header.front() + "' has " + std::to_string(cols.front().size()));
  }
  const std::size_t nrows = cols.empty() ? 0 : cols.front().size();
  for (std::size_t r = 0; r < nrows; ++r) {
    CsvRow row;
    row.line = static_cast<long>(r + 1);
    for (const auto& c : cols) row.fields.push_back(c[r]);
    csv.rows.push_back(std::move(row));
  }

  if (csv.column("time_us") < 0)
    throw InputError(file + ":" + path_in + "/time_us", "missing dataset (measured time in us)");
  MeasuredSet out = measured_from_table(csv);
  out.source = file;
  out.schema = "tcsim-measured-h5";
  out.meta.insert(out.meta.end(), raw.meta.begin(), raw.meta.end());
  return out;
}

}  // namespace tcsim::workload
