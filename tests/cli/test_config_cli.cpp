// tcsim config describe|check|show end to end. The error paths need no model; the success paths
// run on whatever kinds the models register (each registered kind is described, and the shipped
// configs/gpu/*.yaml are checked once the gpu kind is registered).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

using tcsim::test::run_tcsim;
namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  auto d = fs::temp_directory_path() / ("tcsim_cfgcli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

bool contains(const std::string& s, const std::string& part) {
  if (s.find(part) != std::string::npos) return true;
  MESSAGE("'" << part << "' not in: " << s);
  return false;
}

// The kinds `tcsim config describe` lists ("Config kinds: `gpu`, `systolic`.").
std::vector<std::string> registered_kinds() {
  const auto r = run_tcsim("config describe");
  std::vector<std::string> out;
  const auto line_end = r.out.find('\n', r.out.find("Config kinds:"));
  const std::string line = r.out.substr(0, line_end);
  for (auto p = line.find('`', line.find("Config kinds:")); p != std::string::npos; p = line.find('`', p + 1)) {
    const auto q = line.find('`', p + 1);
    if (q == std::string::npos) break;
    out.push_back(line.substr(p + 1, q - p - 1));
    p = q;
  }
  return out;
}

}  // namespace

TEST_CASE("tcsim config: sub-commands, help and describe") {
  auto none = run_tcsim("config");
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "describe"));
  auto help = run_tcsim("config check --help");
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "Example:"));
  auto all = run_tcsim("config describe");
  CHECK(all.exit_code == 0);
  CHECK(contains(all.out, "# tcsim config reference"));
  auto unknown = run_tcsim("config describe quantum");
  CHECK(unknown.exit_code == 2);
  CHECK(contains(unknown.err, "tcsim: error: quantum: unknown config kind"));
  for (const auto& kind : registered_kinds()) {
    CAPTURE(kind);
    auto d = run_tcsim("config describe " + kind);
    CHECK(d.exit_code == 0);
    CHECK(contains(d.out, "| parameter | type | unit | default | range | description |"));
  }
}

TEST_CASE("tcsim config check/show: bad files exit 2 with file, line and what was expected") {
  const auto dir = scratch();
  auto r = run_tcsim("config check '" + (dir / "missing.yaml").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "missing.yaml: config file not found"));

  std::ofstream(dir / "bad.yaml") << "version: 1\nkind: [gpu\n";
  r = run_tcsim("config check '" + (dir / "bad.yaml").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "bad.yaml:"));
  CHECK(contains(r.err, "not valid YAML"));

  std::ofstream(dir / "nokind.yaml") << "version: 1\nsm: {count: 4}\n";
  r = run_tcsim("config show '" + (dir / "nokind.yaml").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "nokind.yaml:1: kind: expected a YAML map with a top-level `kind:`"));

  std::ofstream(dir / "quantum.yaml") << "version: 1\n# a comment\nkind: quantum\n";
  r = run_tcsim("config check '" + (dir / "quantum.yaml").string() + "'");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "quantum.yaml:3: kind: unknown config kind 'quantum'"));

  r = run_tcsim("config check");
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "tcsim: error: tcsim config check: expected a config FILE"));
  fs::remove_all(dir);
}

TEST_CASE("tcsim config check/show on the shipped GPU configs (once the gpu kind is registered)") {
  const auto kinds = registered_kinds();
  if (std::find(kinds.begin(), kinds.end(), "gpu") == kinds.end()) {
    MESSAGE("skipped: no `gpu` config kind is registered in this build");
    return;
  }
  const auto dir = scratch();
  // Every shipped GPU file, the boards built on another (`base:`) included.
  std::vector<fs::path> configs;
  for (const auto& e : fs::directory_iterator(tcsim::test::source_dir() / "configs" / "gpu"))
    if (e.path().extension() == ".yaml") configs.push_back(e.path());
  std::sort(configs.begin(), configs.end());
  CHECK(configs.size() >= 13);
  for (const fs::path& cfg : configs) {
    CAPTURE(cfg.filename().string());
    auto ok = run_tcsim("config check '" + cfg.string() + "'");
    CHECK(ok.exit_code == 0);
    CHECK(ok.out == cfg.string() + ": ok\n");
    // show prints the resolved YAML; checking that file again must succeed too.
    auto shown = run_tcsim("config show '" + cfg.string() + "'");
    REQUIRE(shown.exit_code == 0);
    std::ofstream(dir / "resolved.yaml") << shown.out;
    auto again = run_tcsim("config show '" + (dir / "resolved.yaml").string() + "'");
    CHECK(again.exit_code == 0);
    // Identical apart from the header comment naming the source file.
    CHECK(again.out.substr(again.out.find('\n')) == shown.out.substr(shown.out.find('\n')));
    // The model's own checks run too: an L2 miss faster than a hit is what `tcsim run` rejects.
    auto impossible = run_tcsim("config check '" + cfg.string() + "' --set dram.latency=1cycles");
    CHECK(impossible.exit_code == 2);
    CHECK(contains(impossible.err, "dram.latency: expected at least l2.latency"));
    auto typo = run_tcsim("config check '" + cfg.string() + "' --set no_such.key=1");
    CHECK(typo.exit_code == 2);
    CHECK(contains(typo.err, "--set: no_such.key: unknown parameter"));
  }
  fs::remove_all(dir);
}
