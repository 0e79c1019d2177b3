// main() of every test program: runs the registered TEST cases (runtime/testing/test.h).
#include "runtime/testing/test.h"

int main(int argc, char** argv) {
  return etarm::testing::run_all_tests(argc, argv);
}
