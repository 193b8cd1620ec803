#pragma once
// An HDF5 C-API identifier that is closed when it goes out of scope (files, groups, datasets,
// dataspaces, types, attributes: each with its own close function). Header-only: only the
// modules that link HDF5 (io, workload) include it.
#include <hdf5.h>

namespace tcsim {

class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  Hdf5Handle(Hdf5Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

}  // namespace tcsim
