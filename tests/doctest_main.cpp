// The doctest runner shared by tcsim_tests and the per-module test binaries.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
