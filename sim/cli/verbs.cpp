#include "cli/verbs.h"

#include <algorithm>
#include <iostream>

#include "common/error.h"
#include "common/text/strings.h"
#include "common/version.h"

namespace po = boost::program_options;

namespace tcsim::cli {
namespace {

std::vector<Verb>& registry() {
  static std::vector<Verb> r;
  return r;
}

void print_overview(std::ostream& os) {
  os << "tcsim " << kVersion
     << ": cycle-approximate simulator of tensor cores and systolic arrays, bit-exact MMA numerics\n\n"
        "Usage: tcsim <verb> [options]     (tcsim <verb> --help for the options and an example)\n\nVerbs:\n";
  for (const auto& v : verbs()) {
    os << "  " << v.name;
    for (std::size_t i = v.name.size(); i < 10; ++i) os << ' ';
    os << v.summary << "\n";
  }
  os << "\nOptions:\n  --help       this overview\n  --version    print the version\n";
}

}  // namespace

bool register_verb(Verb verb) {
  registry().push_back(std::move(verb));
  std::sort(registry().begin(), registry().end(), [](const Verb& a, const Verb& b) { return a.name < b.name; });
  return true;
}

const std::vector<Verb>& verbs() { return registry(); }

int dispatch(const std::vector<std::string>& args) {
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      print_overview(std::cout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::cout << "tcsim " << kVersion << "\n";
      return 0;
    }
    for (const auto& v : verbs())
      if (v.name == args[0]) return v.run(std::vector<std::string>(args.begin() + 1, args.end()));
    throw InputError(args[0], "unknown verb; expected one of the verbs listed by 'tcsim --help'");
  } catch (const InputError& e) {
    // where and detail, not what(): a NUL byte quoted from the input would cut what() short.
    std::cerr << "tcsim: error: " << printable(e.where().empty() ? e.detail() : e.where() + ": " + e.detail()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "tcsim: internal error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tcsim: internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}

bool parse_options(const std::vector<std::string>& args, const std::string& usage,
                   const std::string& example, po::options_description& options,
                   const po::positional_options_description* positional, po::variables_map& out) {
  options.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(options);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), out);
    if (out.count("help")) {
      std::cout << "Usage: " << usage << "\n\n" << options << "\nExample:\n" << example << "\n";
      return false;
    }
    po::notify(out);
    // Options that name a thing or a count: an empty output name or a negative job count is a
    // mistake (a shell variable that was not set), never "nothing" or "the default".
    if (auto it = out.find("output"); it != out.end() && !it->second.defaulted()) {
      if (const auto* s = boost::any_cast<std::string>(&it->second.value()); s && s->empty())
        throw InputError("--output", "expected a folder or file name, got an empty string");
    }
    if (auto it = out.find("jobs"); it != out.end() && !it->second.defaulted()) {
      if (const auto* j = boost::any_cast<int>(&it->second.value()); j && *j < 0)
        throw InputError("--jobs", "expected a thread count >= 0 (0 = all cores), got " + std::to_string(*j));
    }
  } catch (const po::error& e) {
    throw InputError(usage.substr(0, usage.find(" [")), e.what());
  }
  return true;
}

void apply_clock_option(const std::string& clock, std::vector<std::string>& overrides) {
  if (clock.empty()) return;
  if (clock != "fixed" && clock != "boost") throw InputError("--clock", "expected fixed or boost, got '" + clock + "'");
  overrides.push_back("power.mode=" + clock);
}

void check_format_option(const std::string& format) {
  if (format != "table" && format != "csv" && format != "json")
    throw InputError("--format", "expected table, csv or json, got '" + format + "'");
}

int check_sub_verb(const std::string& verb, const std::vector<std::string>& args,
                   const std::vector<SubVerb>& subs) {
  bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
  if (!args.empty() && !help)
    for (const auto& s : subs)
      if (s.name == args[0]) return -1;
  std::ostream& os = help ? std::cout : std::cerr;
  if (!args.empty() && !help)
    os << "tcsim: error: " << verb << " " << args[0] << ": unknown sub-command\n";
  os << "Usage: tcsim " << verb << " <sub-command> [options]\n\nSub-commands:\n";
  for (const auto& s : subs) {
    os << "  " << s.name;
    for (std::size_t i = s.name.size(); i < 10; ++i) os << ' ';
    os << s.summary << "\n";
  }
  return help ? 0 : 2;
}

}  // namespace tcsim::cli
