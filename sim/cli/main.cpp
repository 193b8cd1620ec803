// tcsim's entry point: everything happens in the verbs (sim/cli/**/verb_*.cpp).
#include <string>
#include <vector>

#include "cli/verbs.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tcsim::cli::dispatch(args);
}
