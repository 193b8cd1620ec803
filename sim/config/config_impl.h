#pragma once
// The data behind a Config (internal to sim/config): the parsed values by path, the list records,
// and where the config came from.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/value.h"

namespace tcsim::config {

struct ListValue {
  std::vector<Config> records;
  std::string file;
  long line = 0;
  bool given = false;
};

struct Config::Impl {
  std::shared_ptr<const Schema> schema;
  std::string source;   // the file loaded (a record: the file it was written in)
  std::string prefix;   // "" or, for a list record, "mma[2]" (shown before paths in messages)
  std::map<std::string, Value, std::less<>> values;
  std::map<std::string, ListValue, std::less<>> lists;

  std::string shown(std::string_view path) const {
    return prefix.empty() ? std::string(path) : prefix + "." + std::string(path);
  }
};

struct ConfigBuilder {
  static Config make(std::shared_ptr<const Config::Impl> impl) { return Config(std::move(impl)); }
  static const Config::Impl& impl(const Config& c) { return *c.impl_; }
};

}  // namespace tcsim::config
