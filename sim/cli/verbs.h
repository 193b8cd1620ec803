#pragma once
// The verb registry and the option-parsing helper every verb uses.
// A verb lives in sim/cli/[family/]verb_<name>.cpp and registers itself:
//
//   static int run_foo(const std::vector<std::string>& args);
//   TCSIM_REGISTER_VERB(foo, "foo", "one-line summary", run_foo)
//
// args are the words after the verb. A verb returns the exit code; it throws InputError for bad
// input (exit 2). sim/cli is an OBJECT library, so the static registrations are never dropped.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace tcsim::cli {

using VerbFn = int (*)(const std::vector<std::string>& args);

struct Verb {
  std::string name;
  std::string summary;
  VerbFn run;
};

bool register_verb(Verb verb);
const std::vector<Verb>& verbs();  // sorted by name

// Runs `tcsim <args>`: dispatches to a verb, prints errors, returns the process exit code.
int dispatch(const std::vector<std::string>& args);

// Parses a verb's options. Handles --help (prints usage, the options and the example, and
// returns false: the verb should then return 0). Boost errors become InputError naming the option.
//   usage:   "tcsim mma dot [options]"
//   example: one or more example command lines, printed under "Example:"
bool parse_options(const std::vector<std::string>& args, const std::string& usage,
                   const std::string& example, boost::program_options::options_description& options,
                   const boost::program_options::positional_options_description* positional,
                   boost::program_options::variables_map& out);

// `--clock fixed|boost` (run, network, validate): every kernel at the config clock, or at the
// highest clock the power limit allows. Adds the matching power.mode override (GPU configs only;
// a systolic config rejects it as an unknown key). Throws InputError for another value.
void apply_clock_option(const std::string& clock, std::vector<std::string>& overrides);
// `--format table|csv|json` (run, network, validate, replay): throws InputError for another value.
void check_format_option(const std::string& format);
constexpr const char* kClockHelp =
    "fixed: every kernel at the config clock; boost: the highest clock within the board's power limit "
    "(default: the config's power.mode)";

// For verbs with sub-verbs (`tcsim mma dot`): prints the list and returns 2 when `args` is empty
// or names an unknown sub-verb; otherwise returns -1 and the caller dispatches.
struct SubVerb {
  std::string name;
  std::string summary;
};
int check_sub_verb(const std::string& verb, const std::vector<std::string>& args,
                   const std::vector<SubVerb>& subs);

}  // namespace tcsim::cli

#define TCSIM_REGISTER_VERB(ident, name, summary, fn) \
  static const bool tcsim_verb_registered_##ident = ::tcsim::cli::register_verb({name, summary, fn});
