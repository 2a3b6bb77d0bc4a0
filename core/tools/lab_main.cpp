// minimind-lab: prints lesson 11's lab record for a preset, computed by the core.
// Usage: minimind-lab [preset] [seed]   (default: lab-a 0)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "lesson/lab_record.h"

int main(int argc, char** argv) {
  const std::string preset = argc > 1 ? argv[1] : "lab-a";
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  try {
    std::fputs(minimind::lesson11_lab_record(preset, seed).c_str(), stdout);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "minimind-lab: %s\n", e.what());
    return 1;
  }
}
