// Counts the heap allocations a stretch of code makes, to show that a loop
// allocates nothing. The test binary replaces the global operator new (every
// std::vector, std::string and the like goes through it); Eigen allocates
// through malloc instead, which EIGEN_RUNTIME_NO_MALLOC (set for the whole
// build) lets a debug build forbid while a counter is running.
#pragma once

#include <cstdint>

namespace minimind::testing {

class AllocationCounter {
 public:
  AllocationCounter();    // starts counting (counters do not nest)
  ~AllocationCounter();   // stops
  int64_t count() const;  // operator new calls since the start
};

}  // namespace minimind::testing
