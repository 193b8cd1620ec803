// results.h5 through the HDF5 C API (schema v1, see hdf5_writer.h).
#include "io/hdf5_writer.h"

#include <hdf5.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "common/files/atomic_file.h"
#include "common/error.h"
#include "common/hdf5/hdf5_handle.h"
#include "io/cell_text.h"

namespace tcsim::io {

namespace {

using Handle = Hdf5Handle;

class Writer {
 public:
  explicit Writer(std::string file) : file_(std::move(file)) {}

  hid_t check(hid_t id, const std::string& what) const {
    if (id < 0) throw InputError(file_, "HDF5 could not " + what);
    return id;
  }

  // A variable-length UTF-8 string type.
  Handle string_type() const {
    Handle t(check(H5Tcopy(H5T_C_S1), "create a string type"), H5Tclose);
    check(H5Tset_size(t.get(), H5T_VARIABLE), "create a string type");
    check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "create a string type");
    return t;
  }

  void string_attribute(hid_t where, const std::string& name, const std::string& value) const {
    Handle type = string_type();
    Handle space(check(H5Screate(H5S_SCALAR), "create a dataspace"), H5Sclose);
    Handle attr(check(H5Acreate2(where, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      "create attribute '" + name + "'"),
                H5Aclose);
    const std::string text = valid_utf8(value);
    const char* p = text.c_str();
    check(H5Awrite(attr.get(), type.get(), &p), "write attribute '" + name + "'");
  }

  void string_array_attribute(hid_t where, const std::string& name, const std::vector<std::string>& values) const {
    Handle type = string_type();
    const hsize_t n = values.size();
    Handle space(check(H5Screate_simple(1, &n, nullptr), "create a dataspace"), H5Sclose);
    Handle attr(check(H5Acreate2(where, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                      "create attribute '" + name + "'"),
                H5Aclose);
    std::vector<std::string> text;
    for (const auto& v : values) text.push_back(valid_utf8(v));
    std::vector<const char*> ptrs;
    for (const auto& t : text) ptrs.push_back(t.c_str());
    if (n) check(H5Awrite(attr.get(), type.get(), ptrs.data()), "write attribute '" + name + "'");
  }

  // Creation properties without modification times: the same tables give the same bytes
  // (tcsim sweep compares a resumed run's results.h5 with an uninterrupted one).
  static Handle untimed(hid_t cls) {
    Handle p(H5Pcreate(cls), H5Pclose);
    H5Pset_obj_track_times(p.get(), false);
    return p;
  }

  void column(hid_t group, const Table& t, std::size_t c) const {
    const Handle dcpl = untimed(H5P_DATASET_CREATE);
    const Column& col = t.columns[c];
    const std::string what = "dataset '/" + t.name + "/" + col.name + "'";
    const hsize_t n = t.rows.size();
    Handle space(check(H5Screate_simple(1, &n, nullptr), "create a dataspace"), H5Sclose);
    bool numeric = true;
    for (const auto& row : t.rows) numeric = numeric && !std::holds_alternative<std::string>(row[c]);
    if (numeric) {
      std::vector<double> data;
      for (const auto& row : t.rows) {
        if (const auto* i = std::get_if<std::int64_t>(&row[c])) data.push_back(static_cast<double>(*i));
        else if (const auto* d = std::get_if<double>(&row[c])) data.push_back(*d);
        else data.push_back(std::nan(""));
      }
      Handle ds(check(H5Dcreate2(group, col.name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(),
                                 H5P_DEFAULT),
                      "create " + what),
                H5Dclose);
      if (n) check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "write " + what);
      attributes(ds.get(), col);
    } else {
      Handle type = string_type();
      std::vector<std::string> text;
      for (const auto& row : t.rows) text.push_back(valid_utf8(exact_text(row[c])));
      std::vector<const char*> ptrs;
      for (const auto& s : text) ptrs.push_back(s.c_str());
      Handle ds(check(H5Dcreate2(group, col.name.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                                 H5P_DEFAULT),
                      "create " + what),
                H5Dclose);
      if (n) check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), "write " + what);
      attributes(ds.get(), col);
    }
  }

  void attributes(hid_t ds, const Column& col) const {
    string_attribute(ds, "unit", unit_of_column(col.name));
    string_attribute(ds, "description", col.description);
  }

  void table(hid_t file, const Table& t) const {
    const Handle gcpl = untimed(H5P_GROUP_CREATE);
    Handle group(check(H5Gcreate2(file, t.name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                       "create group '/" + t.name + "'"),
                 H5Gclose);
    std::vector<std::string> names;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const std::string& name = t.columns[c].name;
      if (name.empty() || name == "." || name.find('/') != std::string::npos)
        throw std::invalid_argument("table '" + t.name + "': column name '" + name + "' cannot be an HDF5 dataset");
      for (const auto& row : t.rows)
        if (row.size() != t.columns.size())
          throw std::invalid_argument("table '" + t.name + "': a row has the wrong number of cells");
      column(group.get(), t, c);
      names.push_back(name);
    }
    string_array_attribute(group.get(), "columns", names);
  }

 private:
  std::string file_;
};

}  // namespace

void write_hdf5(const std::filesystem::path& file, const ResultSet& r) {
  std::set<std::string> seen;
  for (const auto& t : r.tables) {
    check_table_name(t.name);
    if (!seen.insert(t.name).second) throw std::invalid_argument("result set: two tables named '" + t.name + "'");
  }
  seen.clear();
  for (const auto& [k, _] : r.attributes)
    if (!seen.insert(k).second) throw std::invalid_argument("result set: attribute '" + k + "' given twice");

  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not printed stacks
  AtomicOutput out(file);
  const Writer w(file.string());
  {
    Handle f(w.check(H5Fcreate(out.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create the file"),
             H5Fclose);
    for (const auto& [k, v] : r.attributes)
      if (k != "schema_version") w.string_attribute(f.get(), k, v);
    w.string_attribute(f.get(), "schema_version", "1");
    for (const auto& t : r.tables) w.table(f.get(), t);
    w.check(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flush the file");
  }
  out.commit();
}

}  // namespace tcsim::io
