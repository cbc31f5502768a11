// libsystemc.so owns main() and calls sc_main; run the tests from there.
#include <systemc>

#include "gtest/gtest.h"

int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
